//! One adjustment of the C allocator at start-up, for the large buffers a tool result passes
//! through.
//!
//! glibc's `malloc` serves a request of 128 KiB or more with a mapping of its own and unmaps it
//! when it is freed (mallopt(3), `M_MMAP_THRESHOLD`). A tool result of a few megabytes goes
//! through several such buffers (the message, its decoded text, the found values, the scan's
//! memo, the output), freed stage by stage; the next stage's buffers are new mappings whose
//! every page the kernel faults in and zeroes again. On the 2-core VMs we measure on a page fault
//! costs about 4 µs, and `redact` of the reference corpus spent a fifth to a quarter of its time
//! in the kernel (`benches/README.md`, "The allocator's threshold").
//!
//! glibc raises that threshold by itself, to the size of a mapped block when the block is freed
//! (up to 32 MiB on 64-bit targets), and the trim threshold to twice that; from then on blocks
//! up to that size come from the heap, whose freed memory the next stage reuses. A long-lived
//! proxy gets there after its first large result. Freeing one untouched block just under the
//! limit at start-up makes every process start there: its first large result faults no more
//! than its tenth. The cost is memory kept: up to 64 MiB freed at the top of the heap stays with
//! the process for reuse instead of going back to the kernel at once.
//!
//! Only the binary does this (no `unsafe`, no environment variable its upstream servers could
//! inherit): the library runs in other programs' processes, whose allocator is theirs to tune.
//! Elsewhere than glibc on a 64-bit target it does nothing.

/// Raises glibc's mmap threshold to its dynamic maximum (see the module docs).
pub(crate) fn keep_large_blocks() {
    #[cfg(all(target_os = "linux", target_env = "gnu", target_pointer_width = "64"))]
    {
        /// glibc's `DEFAULT_MMAP_THRESHOLD_MAX` on 64-bit targets: a freed mapped block larger
        /// than this leaves the threshold alone.
        const DYNAMIC_MAX: usize = 32 << 20;
        /// Room for the block's header and its rounding up to whole pages.
        const SLACK: usize = 64 << 10;
        // Never written: the kernel maps no page of it but the header's. `black_box` keeps the
        // compiler from removing an allocation nothing reads. Where the address space is
        // limited (`ulimit -v`) and the block does not fit, nothing changes: no abort at start.
        let mut block: Vec<u8> = Vec::new();
        if block.try_reserve_exact(DYNAMIC_MAX - SLACK).is_ok() {
            drop(std::hint::black_box(block));
        }
    }
}
