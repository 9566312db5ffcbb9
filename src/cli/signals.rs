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
    use tokio::signal::unix::{SignalKind, signal};
    let (cancel_tx, cancel_rx) = watch::channel(false);
    let code = SignalCode::default();
    let stored = code.clone();
    // Registered here, before the run starts, not in the task: a signal that came before
    // the task first ran found no handler and killed the process, note and all.
    let interrupt = signal(SignalKind::interrupt());
    let term = signal(SignalKind::terminate());
    let hup = signal(SignalKind::hangup());
    tokio::spawn(async move {
        let exit = match (interrupt, term, hup) {
            (Ok(mut int), Ok(mut term), Ok(mut hup)) => tokio::select! {
                r = int.recv() => if r.is_some() { 130 } else { return },
                _ = term.recv() => 143,
                _ = hup.recv() => 129,
            },
            // Without SIGTERM/SIGHUP handlers, Ctrl-C still works.
            (Ok(mut int), ..) => {
                if int.recv().await.is_none() {
                    return;
                }
                130
            }
            (Err(_), ..) => return,
        };
        stored.set(exit);
        eprintln!("\n{note}");
        let _ = cancel_tx.send(true);
    });
    (cancel_rx, code)
}

#[cfg(test)]
mod tests {
    use super::stop_on_signal;
    use std::process::Command;

    /// Set in the child process the test below runs itself in.
    const CHILD: &str = "AUTOEVAL_TEST_SIGNAL_CHILD";

    /// A signal sent the moment `stop_on_signal` returns, before its task has run once,
    /// stops the run with its exit code instead of killing the process. Run in a child
    /// process: without a handler the signal ends the process it reaches.
    #[test]
    fn a_signal_before_the_handler_task_runs_stops_the_run() {
        if std::env::var_os(CHILD).is_some() {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime");
            let (stopped, code) = rt.block_on(async {
                let (mut cancel, code) = stop_on_signal("stopping (test)");
                // One thread, no await yet: the handler task has not run.
                let sent = signal_hook::low_level::raise(signal_hook::consts::SIGHUP);
                assert!(sent.is_ok(), "SIGHUP could not be raised: {sent:?}");
                let stopped = cancel.wait_for(|stop| *stop).await.is_ok();
                (stopped, code.get())
            });
            println!("child: stopped {stopped} code {code}");
            return;
        }
        let exe = std::env::current_exe().expect("the test binary");
        let mut child = Command::new(exe)
            .args([
                "--exact",
                "cli::signals::tests::a_signal_before_the_handler_task_runs_stops_the_run",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD, "1")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("the child runs");
        // A signal that never reaches the handler (SIGHUP blocked where the test runs)
        // leaves the child waiting: it fails after a minute instead of hanging.
        let limit = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while child.try_wait().ok().flatten().is_none() {
            if std::time::Instant::now() > limit {
                let _ = child.kill();
                panic!("the child did not stop within a minute: is SIGHUP blocked here?");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let out = child.wait_with_output().expect("the child's output");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "the signal ended the child ({:?}):\n{stdout}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(stdout.contains("child: stopped true code 129"), "{stdout}");
        // The note the user sees, on stderr.
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("\nstopping (test)\n"), "{stderr}");
    }
}
