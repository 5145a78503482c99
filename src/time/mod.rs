//! Simulated time: [`SimTime`], [`SimDuration`] and the [`TimerQueue`].
//!
//! Nothing in gaskit happens "at the frame". Every timer and queued event
//! has its own instant, and advancing the clock fires them in
//! `(time, lane, sequence)` order, each at its own time (at one instant,
//! what ends goes before everything else). Advancing 10 s in one
//! step or in 600 steps of 1/60 s gives the identical result.

mod instant;
mod timers;

pub use instant::{InvalidDuration, SimDuration, SimTime, MICROS_PER_SECOND};
pub(crate) use timers::SavedTimers;
pub use timers::{Lane, TimerKey, TimerQueue};
