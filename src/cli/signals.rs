//! How a run stops on a signal: one handler for `autoeval run` and its batch passes.

use std::sync::Arc;
use std::sync::atomic::{AtomicI32, Ordering};
use tokio::sync::watch;

/// The exit code of the signal that stopped a run: 0 until one arrives.
#[derive(Clone, Debug, Default)]
pub(crate) struct SignalCode(Arc<AtomicI32>);

impl SignalCode {
    /// The exit code stored by the handler (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP), or 0.
    pub(crate) fn get(&self) -> i32 {
        self.0.load(Ordering::SeqCst)
    }

    /// Records the exit code of the signal that arrived.
    fn set(&self, code: i32) {
        self.0.store(code, Ordering::SeqCst);
    }
}

/// Stops a run on Ctrl-C (exit 130), SIGTERM (143) or SIGHUP (129): all stop it the same
/// way, the exit code says which. On a signal, prints `note` on stderr and sends `true`
/// on the returned channel (the run's cancel switch). Call inside a tokio runtime.
pub(crate) fn stop_on_signal(note: &'static str) -> (watch::Receiver<bool>, SignalCode) {
    let (cancel_tx, cancel_rx) = watch::channel(false);
    let code = SignalCode::default();
    let stored = code.clone();
    tokio::spawn(async move {
        use tokio::signal::unix::{SignalKind, signal};
        let (Ok(mut term), Ok(mut hup)) = (
            signal(SignalKind::terminate()),
            signal(SignalKind::hangup()),
        ) else {
            // Without SIGTERM/SIGHUP handlers, Ctrl-C still works.
            if tokio::signal::ctrl_c().await.is_ok() {
                stored.set(130);
                let _ = cancel_tx.send(true);
            }
            return;
        };
        let exit = tokio::select! {
            r = tokio::signal::ctrl_c() => if r.is_ok() { 130 } else { return },
            _ = term.recv() => 143,
            _ = hup.recv() => 129,
        };
        stored.set(exit);
        eprintln!("\n{note}");
        let _ = cancel_tx.send(true);
    });
    (cancel_rx, code)
}
