//! Exact, inline stand-ins for `f64::round` and `f64::floor`.
//!
//! On baseline x86-64 (no SSE4.1, so no `roundsd`) both are library calls
//! of some twenty instructions and a call. Game math that rounds on every
//! attack (a max hit, XP in hundredths, a duration in microseconds) can
//! use these instead: they give the library's results, bit for bit, from
//! a truncating conversion and a comparison. The combat module's damage
//! math and XP use them, and so does every duration an effect evaluates.
//!
//! ```
//! use gaskit::rounding::{floor, round_to_u64};
//!
//! assert_eq!(round_to_u64(2.5), 3);
//! assert_eq!(round_to_u64(1_234.499_999), 1_234);
//! assert_eq!(round_to_u64(-7.0), 0, "negative values saturate to zero, as `as` does");
//! assert_eq!(floor(0.5 + 715.0 / 640.0), 1.0);
//! assert_eq!(floor(-0.25), -1.0);
//! ```

/// Below this every double may have a fraction; from it on every double
/// is a whole number.
const TWO_52: f64 = 4_503_599_627_370_496.0;

/// `x.round() as u64`, exactly, for every `x`: the nearest whole number,
/// halves away from zero; 0 for a negative `x` or NaN and `u64::MAX` from
/// 2^64 on (infinity included), as the saturating `as` gives.
///
/// This is exact: the whole part of a double is a double, and the fraction
/// `x - whole` is computed without error (Sterbenz), so comparing it with
/// one half decides as `round` does.
#[inline]
pub fn round_to_u64(x: f64) -> u64 {
    // Below 2^63 (every duration a game writes) the signed conversions are
    // single instructions; above it every double is already whole, and
    // NaN fails the comparison and converts to 0.
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    if x < TWO_63 {
        if x < 0.0 {
            return 0;
        }
        let whole = x as i64;
        let fraction = x - whole as f64;
        (whole + i64::from(fraction >= 0.5)) as u64
    } else {
        x as u64
    }
}

/// `x.floor()`, bit for bit, for every `x` (negative zero, infinities and
/// NaN included).
#[inline]
pub fn floor(x: f64) -> f64 {
    if x.abs() < TWO_52 {
        // The conversion truncates towards zero, exactly in this range;
        // below zero a dropped fraction means one less. The sign is `x`'s,
        // which matters only for zero: the floor of −0.0 is −0.0.
        let truncated = x as i64 as f64;
        let floored = if truncated > x {
            truncated - 1.0
        } else {
            truncated
        };
        floored.copysign(x)
    } else {
        // At and beyond 2^52 in magnitude every double is whole (and so
        // are the infinities); NaN fails the comparison and comes back as
        // it is.
        x
    }
}

#[cfg(test)]
mod tests {
    use rand_chacha::rand_core::{Rng, SeedableRng};

    use super::*;

    /// Whole numbers, halves and the doubles just beside them, across
    /// magnitudes up to the edge of the exact range and beyond it.
    fn edge_cases() -> Vec<f64> {
        let mut cases = vec![
            0.0,
            0.5,
            1.5,
            2.5,
            0.49999999999999994,
            4503599627370495.5,
            f64::MIN_POSITIVE,
            TWO_52,
            (1u64 << 53) as f64 + 2.0,
            // The largest double below 2^64, and 2^64 itself.
            f64::from_bits((u64::MAX as f64).to_bits() - 1),
            u64::MAX as f64,
            f64::MAX,
            f64::INFINITY,
        ];
        for whole in [0u64, 1, 2, 3, 1_000, 2_400_000, 1 << 40, (1 << 52) - 1] {
            let whole = whole as f64;
            for x in [whole, whole + 0.5] {
                cases.extend([x, f64::from_bits(x.to_bits() + 1)]);
                if x > 0.0 {
                    cases.push(f64::from_bits(x.to_bits() - 1));
                }
            }
        }
        cases
    }

    /// Random doubles: any bit pattern of a non-negative one, and values
    /// with a few decimals (durations, XP).
    fn random_cases(count: usize) -> Vec<f64> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let mut cases = Vec::with_capacity(2 * count);
        for _ in 0..count {
            cases.push(f64::from_bits(rng.next_u64() >> 1));
            cases.push((rng.next_u64() % 100_000_000) as f64 / 1_000.0);
        }
        cases
    }

    /// Every case and its negation, the infinities and NaN of both signs.
    fn all_cases() -> Vec<f64> {
        let mut cases = edge_cases();
        cases.extend(random_cases(100_000));
        let negated: Vec<f64> = cases.iter().map(|x| -x).collect();
        cases.extend(negated);
        cases.extend([f64::NEG_INFINITY, f64::NAN, -f64::NAN]);
        cases
    }

    #[test]
    fn rounding_agrees_with_the_library_round() {
        for x in all_cases() {
            assert_eq!(round_to_u64(x), x.round() as u64, "{x:e}");
        }
    }

    /// Bit for bit, so −0.0 stays −0.0; NaN stays NaN.
    #[test]
    fn floor_agrees_with_the_library_floor() {
        for x in all_cases() {
            if x.is_nan() {
                assert!(floor(x).is_nan());
            } else {
                assert_eq!(floor(x).to_bits(), x.floor().to_bits(), "{x:e}");
            }
        }
    }
}
