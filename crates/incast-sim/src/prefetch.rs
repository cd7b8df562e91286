//! Software prefetch: a hint that data will be read soon, so that its cache lines load while the
//! CPU does other work. It never faults and never changes a result; on targets without the
//! instruction it does nothing.

/// Starts loading the cache line that holds the start of `value` into all cache levels.
#[inline(always)]
pub(crate) fn line<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: a prefetch is only a hint; it reads nothing into the program and cannot fault.
        unsafe { _mm_prefetch::<_MM_HINT_T0>((value as *const T).cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
