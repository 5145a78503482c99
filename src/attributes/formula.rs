//! The stat formula: base and accumulators to an effective value.

use super::modifiers::{Accumulated, ModOp};
use super::schema::{AttributeDef, AttributeMode, Bound};

/// The points actually applied: the sum clamped once to `[0, cap]`.
#[inline]
pub(crate) fn clamp_points(def: &AttributeDef, points: f64) -> f64 {
    points.min(def.points_cap()).max(0.0)
}

/// The value before bounds: the override if any, else
/// Direct `(base + flat) × (1 + points) × mult` or
/// Interval `(base + flat) × (1 − points) ÷ mult`.
#[inline]
pub(crate) fn unbounded(def: &AttributeDef, base: f64, acc: &Accumulated) -> f64 {
    if let Some(value) = acc.override_value {
        return value;
    }
    let points = clamp_points(def, acc.points);
    match def.mode {
        AttributeMode::Direct => (base + acc.flat) * (1.0 + points) * acc.mult,
        AttributeMode::Interval => (base + acc.flat) * (1.0 - points) / acc.mult,
    }
}

/// `base` after an execution writes `value` into it with `op`, by the
/// rule a modifier of that op follows in [`unbounded`]: points clamped to
/// `[0, cap]` and, on an Interval attribute, shortening it (as does a
/// `Mult`, which divides a span: ×1.25 attack speed is a fifth less
/// time). So an instant haste and a lasting one move an attribute the same
/// way. Each write is its own: two points written by one execution
/// compound, as two instants would (and as Unreal's instant writes do),
/// where two held ones sum and meet the cap once.
#[inline]
pub(crate) fn executed_into_base(def: &AttributeDef, base: f64, op: ModOp, value: f64) -> f64 {
    match op {
        ModOp::Flat => base + value,
        ModOp::Points => {
            let points = clamp_points(def, value);
            match def.mode {
                AttributeMode::Direct => base * (1.0 + points),
                AttributeMode::Interval => base * (1.0 - points),
            }
        }
        ModOp::Mult => match def.mode {
            AttributeMode::Direct => base * value,
            AttributeMode::Interval => base / value,
        },
        ModOp::Override => value,
    }
}

/// The `[lo, hi]` range of an attribute given the current values of others.
/// Missing bounds are infinite.
#[inline]
pub(crate) fn bounds(def: &AttributeDef, current: &[f64]) -> (f64, f64) {
    let read = |bound: Option<Bound>, missing: f64| match bound {
        None => missing,
        Some(Bound::Value(v)) => v,
        Some(Bound::Attribute(id)) => current[id.index()],
    };
    (
        read(def.min, f64::NEG_INFINITY),
        read(def.max, f64::INFINITY),
    )
}

/// `value` inside `[lo, hi]`; when the bounds conflict the lower one wins.
/// (Unlike `f64::clamp`, never panics on crossed or NaN bounds.)
#[inline]
pub(crate) fn clamp(value: f64, (lo, hi): (f64, f64)) -> f64 {
    let capped = if value > hi { hi } else { value };
    if capped < lo {
        lo
    } else {
        capped
    }
}
