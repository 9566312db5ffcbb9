//! The C heap Z3 allocates from, kept between uses instead of handed back to the
//! system after every check.
//!
//! The proof search gives each confirmation a fresh Z3 context (its answers must not
//! depend on what the thread checked before). A context's tables are large enough
//! that glibc serves them with `mmap` and unmaps them when the context goes, so every
//! context faulted in and zeroed its pages again: on 20,000 FOL samples, 100,000 page
//! faults. Serving them from the heap and not trimming it leaves 27,000. Answers are
//! unchanged: this is only where the memory comes from.

/// Largest allocation glibc serves from the heap rather than `mmap` (glibc's maximum
/// on 64-bit systems).
#[cfg(all(target_os = "linux", target_env = "gnu", target_pointer_width = "64"))]
const MMAP_THRESHOLD: i32 = 32 << 20;
/// Free memory at the heap's top kept rather than returned to the system.
#[cfg(all(target_os = "linux", target_env = "gnu", target_pointer_width = "64"))]
const TRIM_THRESHOLD: i32 = 512 << 20;

/// Keeps freed C heap memory for reuse (64-bit glibc only; elsewhere nothing to do).
/// Whether the allocator took both settings (true where there is nothing to set).
// The second unsafe call in the crate: `mallopt` has no safe wrapper.
#[allow(unsafe_code)]
pub fn keep_c_heap() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu", target_pointer_width = "64"))]
    // SAFETY: `mallopt` only sets allocator parameters, under glibc's own arena lock
    // (safe from any thread); a refused value leaves glibc's default.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1
            && libc::mallopt(libc::M_TRIM_THRESHOLD, TRIM_THRESHOLD) == 1
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu", target_pointer_width = "64")))]
    true
}

#[cfg(all(
    test,
    target_os = "linux",
    target_env = "gnu",
    target_pointer_width = "64"
))]
mod tests {
    /// After the settings, a block of a few megabytes (a Z3 context's tables) comes
    /// from the heap, not from a fresh `mmap` handed back when it is freed.
    #[test]
    #[allow(unsafe_code)]
    fn a_large_block_comes_from_the_heap() {
        assert!(super::keep_c_heap());
        // SAFETY: plain C allocation, freed once; mallinfo2 only reads counters.
        unsafe {
            let before = libc::mallinfo2().hblks;
            let p = libc::malloc(4 << 20);
            assert!(!p.is_null());
            let during = libc::mallinfo2().hblks;
            libc::free(p);
            assert_eq!(during, before, "a 4 MB block was mmapped");
        }
    }
}
