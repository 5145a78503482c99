//! Software prefetch: telling the memory system which cache lines the next
//! few steps will read, so their fetches overlap instead of following one
//! another.
//!
//! At a hundred thousand fighters and more, an attack spends most of its
//! time waiting for the first read of each piece of the entities it
//! touches (their ability systems, their effects, the timer that woke
//! them): these live far apart, so each read is a miss, and each miss
//! starts only when the code reaches it. The context knows which entities
//! its next timers will touch (see `Gas::advance_to`) and asks for their
//! lines a few timers early.
//!
//! This is the crate's one use of `unsafe`: the prefetch instruction is
//! only reachable through an intrinsic. It is a hint: it changes no state
//! the program can see, and it cannot fault, whatever the address.

/// Lines asked for per value at most: a value larger than this (an
/// unusually large store) is asked for in part.
const MAX_LINES: usize = 16;
/// Bytes in a cache line.
const LINE: usize = 64;

/// Asks for the lines `value` spans (a slice: its elements, up to
/// [`MAX_LINES`]).
#[inline(always)]
pub(crate) fn value<T: ?Sized>(value: &T) {
    span(std::ptr::from_ref(value).cast(), size_of_val(value));
}

/// Asks for the lines of the first `max_bytes` of `items`.
#[inline(always)]
pub(crate) fn head<T>(items: &[T], max_bytes: usize) {
    span(items.as_ptr().cast(), size_of_val(items).min(max_bytes));
}

/// Asks for the lines of `bytes` bytes from `start` (no more than
/// [`MAX_LINES`]).
#[inline(always)]
fn span(start: *const u8, bytes: usize) {
    if bytes == 0 {
        return;
    }
    // `start + i * LINE` lies in the i-th line of the span, the first
    // being the one `start` is in.
    let into_first = start.addr() % LINE;
    let lines = (into_first + bytes).div_ceil(LINE).min(MAX_LINES);
    for i in 0..lines {
        line(start.wrapping_add(i * LINE));
    }
}

/// Asks for the line holding `address`, into the second-level cache.
///
/// Into L2 rather than L1: a timer asks for up to thirty lines a few
/// timers before it runs, and a wall-clock profile at 100 000 fighters put
/// a fifth of the time on the prefetch instructions themselves. Why the
/// nearer cache costs more is not established (the lines the running
/// timer still uses being pushed out of L1 is one explanation, fill
/// buffers held longer another). Measured alternately on the arena with
/// the L1 hint: 2.8 % less time per attack at 100 000 fighters, 4.5 % at
/// a million after warm-up and 2 % over their first 10 s; even at 30 000.
#[inline(always)]
fn line(address: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` reads nothing the program can observe and
    // never faults, for any address; the SSE it needs is part of every
    // x86-64 target.
    #[allow(unsafe_code)]
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T1 }>(address.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = address;
}
