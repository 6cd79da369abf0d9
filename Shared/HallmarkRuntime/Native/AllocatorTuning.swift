import malloc

/// glibc's allocator, held to the heap a service has grown rather than giving it back after
/// every burst (issue #55).
///
/// By default glibc returns the top of a heap to the kernel as soon as 128 KiB of it is free,
/// and serves every block of 128 KiB or more (a fetch buffer, a batch's array) with its own
/// `mmap`. A service that allocates and frees a request's worth of memory thousands of times a
/// second then grows and shrinks its heaps all the time: in `hallmark bench edge`, `mprotect`,
/// page faults and `sysmalloc` were about 4% of the edge's CPU. With these limits, its CPU per
/// submission fell by 6–7% (two alternating pairs, the same binaries), at the price of keeping
/// up to ``trimThreshold`` free at the top of each heap.
///
/// `GLIBC_TUNABLES` with any `glibc.malloc.` tunable leaves the allocator as the operator set it.
enum AllocatorTuning {
    /// Blocks below this come from the heap, not from an `mmap` each.
    static let mmapThreshold: Int32 = 4 << 20
    /// Free memory at the top of a heap kept before any goes back to the kernel.
    static let trimThreshold: Int32 = 64 << 20
    /// Grown by this much more than asked, when a heap grows.
    static let topPad: Int32 = 16 << 20

    /// Applies the limits unless `environment` tunes the allocator itself; whether it did.
    @discardableResult
    static func apply(environment: [String: String]) -> Bool {
        if environment["GLIBC_TUNABLES"]?.contains("glibc.malloc.") == true { return false }
        // Setting the trim threshold also stops glibc from moving both thresholds on its own.
        return mallopt(M_MMAP_THRESHOLD, mmapThreshold) == 1 && mallopt(M_TRIM_THRESHOLD, trimThreshold) == 1
            && mallopt(M_TOP_PAD, topPad) == 1
    }
}
