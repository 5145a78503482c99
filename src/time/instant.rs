//! [`SimTime`] and [`SimDuration`]: integer simulated time in microseconds.

use std::fmt;
use std::num::NonZeroU64;
use std::ops::{Add, AddAssign, Sub};

use serde::{Deserialize, Serialize};

/// Microseconds per second.
pub const MICROS_PER_SECOND: u64 = 1_000_000;

/// A span of simulated time, in whole microseconds.
///
/// Integer time keeps ordering exact and identical on every platform: two
/// timers 2.4 s apart are exactly 2 400 000 µs apart, however the game
/// steps its frames. Seconds from data are converted once, at the edge, by
/// rounding to the nearest microsecond.
#[derive(
    Copy, Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
pub struct SimDuration(u64);

/// A point in simulated time: microseconds since the simulation started.
///
/// Kept as the microseconds plus one, so the last `u64` is [`SimTime::MAX`]
/// and zero is never held: an `Option<SimTime>` (when a fighter lost sight
/// of its target, say) is then eight bytes, not sixteen, in every
/// component that keeps one. The order, the sums and the saved form are
/// those of the microseconds (and [`SimTime::MAX`] saves as `u64::MAX`).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(from = "Micros", into = "Micros")]
pub struct SimTime(NonZeroU64);

/// A [`SimTime`] as saved: its microseconds.
#[derive(Serialize, Deserialize)]
#[serde(rename = "SimTime")]
struct Micros(u64);

impl From<Micros> for SimTime {
    fn from(saved: Micros) -> Self {
        SimTime::from_micros(saved.0)
    }
}

/// "Never" saves as it always did, as `u64::MAX`, so saves and checksums
/// of a state holding it are what they were before the representation
/// left that number out.
impl From<SimTime> for Micros {
    fn from(time: SimTime) -> Self {
        if time == SimTime::MAX {
            return Micros(u64::MAX);
        }
        Micros(time.as_micros())
    }
}

impl Default for SimTime {
    fn default() -> Self {
        SimTime::ZERO
    }
}

impl fmt::Debug for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("SimTime").field(&self.as_micros()).finish()
    }
}

/// A number that is not a usable duration (negative, NaN, infinite, or
/// beyond what `u64` microseconds hold).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct InvalidDuration(pub f64);

impl fmt::Display for InvalidDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} is not a valid duration in seconds (must be finite, ≥ 0 and below about 1.8e13)",
            self.0
        )
    }
}

impl std::error::Error for InvalidDuration {}

impl SimDuration {
    /// No time.
    pub const ZERO: SimDuration = SimDuration(0);
    /// The longest representable span.
    pub const MAX: SimDuration = SimDuration(u64::MAX);

    /// Whole microseconds.
    pub const fn from_micros(micros: u64) -> Self {
        Self(micros)
    }

    /// Whole milliseconds, saturating at [`SimDuration::MAX`] (a literal
    /// never wraps).
    pub const fn from_millis(millis: u64) -> Self {
        Self(millis.saturating_mul(1_000))
    }

    /// Whole seconds, saturating at [`SimDuration::MAX`].
    pub const fn from_secs(secs: u64) -> Self {
        Self(secs.saturating_mul(MICROS_PER_SECOND))
    }

    /// Seconds as written in data, rounded once to the nearest microsecond.
    pub fn from_secs_f64(secs: f64) -> Result<Self, InvalidDuration> {
        let micros = secs * MICROS_PER_SECOND as f64;
        // Near 2^64 every double is a whole number, so comparing before
        // rounding is the same as comparing the rounded value. The two
        // comparisons also refuse what is not finite: NaN compares false,
        // −∞ is below zero and +∞ (or a product that overflows to it) is
        // not below the bound.
        if secs >= 0.0 && micros < u64::MAX as f64 {
            Ok(Self(crate::rounding::round_to_u64(micros)))
        } else {
            Err(InvalidDuration(secs))
        }
    }

    /// The span in microseconds.
    pub const fn as_micros(self) -> u64 {
        self.0
    }

    /// The span in seconds (for display and math; never for ordering).
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / MICROS_PER_SECOND as f64
    }

    /// True for a zero span.
    pub const fn is_zero(self) -> bool {
        self.0 == 0
    }

    /// `self − other`, or zero if `other` is longer.
    pub const fn saturating_sub(self, other: SimDuration) -> SimDuration {
        SimDuration(self.0.saturating_sub(other.0))
    }
}

impl SimTime {
    /// The start of the simulation.
    pub const ZERO: SimTime = SimTime(NonZeroU64::MIN);
    /// The end of representable time ("never"): `u64::MAX - 1`
    /// microseconds, the last the representation holds.
    pub const MAX: SimTime = SimTime(NonZeroU64::MAX);

    /// Microseconds since the start (`u64::MAX` is [`SimTime::MAX`]).
    pub const fn from_micros(micros: u64) -> Self {
        Self(NonZeroU64::MIN.saturating_add(micros))
    }

    /// Whole milliseconds since the start, saturating at [`SimTime::MAX`].
    pub const fn from_millis(millis: u64) -> Self {
        Self::from_micros(SimDuration::from_millis(millis).0)
    }

    /// Whole seconds since the start, saturating at [`SimTime::MAX`]:
    /// `SimTime::from_secs(2)` needs no `unwrap`.
    pub const fn from_secs(secs: u64) -> Self {
        Self::from_micros(SimDuration::from_secs(secs).0)
    }

    /// Seconds since the start, rounded to the nearest microsecond. Fallible
    /// because the input may be untrusted (data, a client): negative, NaN
    /// and out-of-range values are errors.
    pub fn from_secs_f64(secs: f64) -> Result<Self, InvalidDuration> {
        SimDuration::from_secs_f64(secs).map(|d| SimTime::from_micros(d.0))
    }

    /// Microseconds since the start.
    pub const fn as_micros(self) -> u64 {
        self.0.get() - 1
    }

    /// Seconds since the start (for display).
    pub fn as_secs_f64(self) -> f64 {
        self.as_micros() as f64 / MICROS_PER_SECOND as f64
    }

    /// The span from `earlier` to `self`, or zero if `earlier` is later.
    pub const fn saturating_since(self, earlier: SimTime) -> SimDuration {
        // Both are one above their microseconds: the difference is theirs.
        SimDuration(self.0.get().saturating_sub(earlier.0.get()))
    }
}

impl Add<SimDuration> for SimTime {
    type Output = SimTime;

    /// Saturates at [`SimTime::MAX`] ("never").
    fn add(self, rhs: SimDuration) -> SimTime {
        SimTime(self.0.saturating_add(rhs.0))
    }
}

impl AddAssign<SimDuration> for SimTime {
    fn add_assign(&mut self, rhs: SimDuration) {
        *self = *self + rhs;
    }
}

impl Sub<SimTime> for SimTime {
    type Output = SimDuration;

    /// Saturates at zero.
    fn sub(self, rhs: SimTime) -> SimDuration {
        self.saturating_since(rhs)
    }
}

impl Add for SimDuration {
    type Output = SimDuration;

    fn add(self, rhs: SimDuration) -> SimDuration {
        SimDuration(self.0.saturating_add(rhs.0))
    }
}

impl fmt::Display for SimDuration {
    /// Seconds with three decimals: `2.400s`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}.{:03}s",
            self.0 / MICROS_PER_SECOND,
            (self.0 % MICROS_PER_SECOND) / 1_000
        )
    }
}

impl fmt::Display for SimTime {
    /// Seconds with three decimals: `12.600`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let micros = self.as_micros();
        write!(
            f,
            "{}.{:03}",
            micros / MICROS_PER_SECOND,
            (micros % MICROS_PER_SECOND) / 1_000
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_round_once_to_microseconds() {
        assert_eq!(
            SimDuration::from_secs_f64(2.4).unwrap().as_micros(),
            2_400_000
        );
        assert_eq!(
            SimDuration::from_secs_f64(1.0 / 3.0).unwrap().as_micros(),
            333_333
        );
        assert_eq!(
            SimDuration::from_secs_f64(0.0000005).unwrap().as_micros(),
            1
        );
        for bad in [
            -0.1,
            f64::NAN,
            -f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            1e30,
            // A finite number whose microseconds overflow to infinity.
            f64::MAX,
        ] {
            assert!(SimDuration::from_secs_f64(bad).is_err(), "{bad}");
            assert!(SimTime::from_secs_f64(bad).is_err(), "{bad}");
        }
        assert_eq!(SimDuration::from_secs_f64(-0.0), Ok(SimDuration::ZERO));
    }

    #[test]
    fn arithmetic_saturates_and_displays_in_seconds() {
        let t = SimTime::from_micros(12_600_000);
        assert_eq!(t.to_string(), "12.600");
        assert_eq!(SimDuration::from_millis(2_400).to_string(), "2.400s");
        assert_eq!(SimTime::MAX + SimDuration::from_secs(1), SimTime::MAX);
        assert_eq!(SimTime::ZERO - t, SimDuration::ZERO);
        assert_eq!(t - SimTime::ZERO, SimDuration::from_millis(12_600));
    }

    #[test]
    fn literals_are_const_and_never_wrap() {
        const TWO: SimTime = SimTime::from_secs(2);
        const QUARTER: SimDuration = SimDuration::from_millis(250);
        assert_eq!(TWO.as_micros(), 2_000_000);
        assert_eq!(SimTime::from_millis(2_000), TWO);
        assert_eq!(QUARTER.as_micros(), 250_000);
        assert_eq!(SimDuration::from_secs(u64::MAX), SimDuration::MAX);
        assert_eq!(SimDuration::from_millis(u64::MAX / 10), SimDuration::MAX);
        assert_eq!(SimTime::from_secs(u64::MAX / 1000), SimTime::MAX);
        assert_eq!(SimTime::from_micros(u64::MAX), SimTime::MAX);
        assert_eq!(SimTime::MAX.as_micros(), u64::MAX - 1);
    }

    /// A time is one word, and so is an optional one; it reads, orders,
    /// prints and saves as its microseconds.
    #[test]
    fn an_optional_time_is_one_word() {
        assert_eq!(std::mem::size_of::<Option<SimTime>>(), 8);
        let early = SimTime::from_micros(0);
        let late = SimTime::from_micros(7);
        assert!(early < late && late < SimTime::MAX);
        assert_eq!(early, SimTime::ZERO);
        assert_eq!(SimTime::default(), SimTime::ZERO);
        assert_eq!(late - early, SimDuration::from_micros(7));
        assert_eq!(late + SimDuration::from_micros(3), SimTime::from_micros(10));
        assert_eq!(format!("{late:?}"), "SimTime(7)");
        assert_eq!(ron::to_string(&late).unwrap(), "(7)");
        assert_eq!(ron::from_str::<SimTime>("(7)").unwrap(), late);
        let never = "(18446744073709551615)";
        assert_eq!(ron::to_string(&SimTime::MAX).unwrap(), never);
        assert_eq!(ron::from_str::<SimTime>(never).unwrap(), SimTime::MAX);
        let last = "(18446744073709551614)";
        assert_eq!(ron::from_str::<SimTime>(last).unwrap(), SimTime::MAX);
    }
}
