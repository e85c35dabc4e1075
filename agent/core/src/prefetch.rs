//! Cache hints for the tables read at random, one key at a time (the
//! labeled sets' compact table, lid.176's n-gram buckets): a lookup that
//! waits for memory costs tens of nanoseconds, and a batch of keys known in
//! advance can have their lines on the way while earlier ones are read.

/// Asks the CPU to start loading `x`'s cache line; never faults, no effect on results.
#[inline(always)]
pub fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    hinted::<T, { std::arch::x86_64::_MM_HINT_T0 }>(x);
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// As [`prefetch`], for a line read once and not again soon (a probe of a
/// large filter): brought near the core without displacing what the rest
/// of the pipeline keeps in the outer caches.
#[inline(always)]
pub fn prefetch_once<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    hinted::<T, { std::arch::x86_64::_MM_HINT_NTA }>(x);
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn hinted<T, const HINT: i32>(x: &T) {
    // SAFETY: a prefetch is a hint; it does not access memory architecturally
    // and cannot fault, and the pointer comes from a reference anyway.
    #[allow(unused_unsafe)]
    unsafe {
        std::arch::x86_64::_mm_prefetch::<HINT>(x as *const T as *const i8);
    }
}
