//! Attributes: base and current values, the modifier pipeline, derived
//! attributes and the breakdown.
//!
//! # The formula
//!
//! Modifiers on an attribute fall into three accumulators and an override:
//! `Flat` values are summed, `Points` (percentage points as fractions) are
//! summed and then clamped once to `[0, cap]`, `Mult` factors are
//! multiplied, and the newest `Override` replaces the result. The mode of
//! the attribute decides how they combine:
//!
//! - Direct: `(base + flat) × (1 + points) × mult`
//! - Interval: `(base + flat) × (1 − points) ÷ mult` (durations shrink)
//!
//! Bounds (constants or other attributes, such as `Health ≤ MaxHealth`) are
//! applied last. Points are bonuses: a negative sum is ignored, and a
//! penalty is a `Mult` below 1. The breakdown shows both losses plainly.
//!
//! # Derived attributes
//!
//! A profile holds up to 8 linear rules `Target = Base + Σ Source ×
//! Coefficient` (up to 8 terms each). A rule owns its target's *base*
//! value; modifiers still apply on top. Rules run in a topological order
//! fixed at load (authored order between independent rules), and a rule
//! whose result is not finite leaves its target unchanged. Duplicate
//! targets, cycles (reported with their whole path), unknown attributes,
//! non-finite numbers and oversize profiles are load errors.

mod breakdown;
mod data;
mod derived;
mod formula;
mod modifiers;
mod schema;
mod values;

pub use breakdown::{Breakdown, Contribution};
pub use data::{AttributeData, BoundData, DerivedProfileData, DerivedRuleData};
pub use derived::{ProfileId, MAX_DERIVED_RULES, MAX_DERIVED_TERMS};
pub use modifiers::{ModOp, SourceId};
pub use schema::{
    AttributeDef, AttributeId, AttributeMode, AttributeSchema, Bound, MAX_ATTRIBUTES,
};
pub use values::{AttributeChange, AttributeChanges, AttributeError, Attributes};

pub(crate) use formula::executed_into_base;
