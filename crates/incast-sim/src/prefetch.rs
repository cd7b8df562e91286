//! Software prefetch: a hint that data will be read soon, so that its cache lines load while the
//! CPU does other work. It never faults and never changes a result; on targets without the
//! instruction it does nothing.

/// Starts loading the cache line that holds the start of `value` into all cache levels.
#[inline(always)]
pub(crate) fn line<T>(value: &T) {
    at((value as *const T).cast::<u8>());
}

/// Starts loading every cache line `value` spans.
#[inline(always)]
pub(crate) fn lines<T>(value: &T) {
    let start = (value as *const T).cast::<u8>();
    let size = std::mem::size_of::<T>();
    let mut offset = 0;
    while offset < size {
        at(start.wrapping_add(offset));
        offset += 64;
    }
    // The last line, which the steps above miss when `value` does not start a line.
    at(start.wrapping_add(size.saturating_sub(1)));
}

/// Starts loading the cache line of `address`.
#[inline(always)]
fn at(address: *const u8) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: a prefetch is only a hint; it reads nothing into the program and cannot fault,
        // whatever the address.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(address.cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = address;
}
