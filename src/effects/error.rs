//! [`EffectError`]: why an effect could not be applied.

use std::fmt;

use hecs::Entity;

use super::def::EffectId;
use crate::attributes::AttributeId;
use crate::names::Named;
use crate::tags::Tag;

/// An application that failed. Nothing was changed.
#[derive(Clone, Debug, PartialEq)]
pub enum EffectError {
    /// The target is despawned or has no ability system.
    NoSuchTarget(Entity),
    /// The effect id is not in this catalog (so it has no name).
    UnknownEffect(EffectId),
    /// A `SetByCaller` magnitude's key is not on the spec.
    MissingSetByCaller {
        /// The effect.
        effect: Named<EffectId>,
        /// The key it asked for.
        key: Named<Tag>,
    },
    /// Two spec entries sit under one `SetByCaller` key.
    AmbiguousSetByCaller {
        /// The effect.
        effect: Named<EffectId>,
        /// The key it asked for.
        key: Named<Tag>,
    },
    /// The spec carries a tag or a SetByCaller key this catalog does not
    /// know (another catalog's).
    UnknownSpecTag {
        /// The effect.
        effect: Named<EffectId>,
    },
    /// A source attribute was needed but the source is gone or has none.
    SourceUnavailable {
        /// The effect.
        effect: Named<EffectId>,
    },
    /// A magnitude evaluated to NaN or infinity.
    NotFinite {
        /// The effect.
        effect: Named<EffectId>,
        /// The value.
        value: f64,
    },
    /// A calculation produced a value that is not finite.
    CalculationFailed {
        /// The effect.
        effect: Named<EffectId>,
        /// The calculation's registered name.
        calculation: String,
        /// The value.
        value: f64,
    },
    /// A calculation wrote to an attribute the target's schema does not
    /// hold (an id from another catalog).
    CalculationOutputUnknown {
        /// The effect.
        effect: Named<EffectId>,
        /// The calculation's registered name.
        calculation: String,
        /// The attribute it wrote.
        attribute: AttributeId,
    },
    /// A `Mult` on an Interval attribute (which divides its span) came to
    /// zero or below, by itself or summed over the stack limit.
    SpanMultiplier {
        /// The effect.
        effect: Named<EffectId>,
        /// The factor for one stack.
        value: f64,
    },
    /// A duration magnitude is not a usable number of seconds.
    BadDuration {
        /// The effect.
        effect: Named<EffectId>,
        /// The seconds it evaluated to.
        seconds: f64,
    },
    /// A lasting effect applied at a level above
    /// [`MAX_EFFECT_LEVEL`](crate::MAX_EFFECT_LEVEL): an active effect keeps
    /// its level in sixteen bits.
    LevelTooHigh {
        /// The effect.
        effect: Named<EffectId>,
        /// The level asked for.
        level: u32,
    },
    /// One operation caused more follow-up applications (conditional,
    /// on-expiry, on-removal effects) than the limit: the data loops (an
    /// effect whose removal re-applies it while it removes its own kind).
    FollowUpLimit {
        /// The effect not applied.
        effect: Named<EffectId>,
        /// The limit.
        limit: u32,
    },
}

impl EffectError {
    /// The effect that failed, when the catalog knows it.
    pub fn effect(&self) -> Option<EffectId> {
        match self {
            EffectError::NoSuchTarget(_) => None,
            EffectError::UnknownEffect(id) => Some(*id),
            EffectError::MissingSetByCaller { effect, .. }
            | EffectError::AmbiguousSetByCaller { effect, .. }
            | EffectError::SourceUnavailable { effect }
            | EffectError::UnknownSpecTag { effect }
            | EffectError::NotFinite { effect, .. }
            | EffectError::CalculationFailed { effect, .. }
            | EffectError::CalculationOutputUnknown { effect, .. }
            | EffectError::BadDuration { effect, .. }
            | EffectError::SpanMultiplier { effect, .. }
            | EffectError::LevelTooHigh { effect, .. }
            | EffectError::FollowUpLimit { effect, .. } => Some(effect.id),
        }
    }
}

impl fmt::Display for EffectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EffectError::NoSuchTarget(e) => {
                write!(f, "entity {e:?} is gone or has no ability system")
            }
            EffectError::UnknownEffect(id) => {
                write!(f, "effect #{} is not in this catalog", id.index())
            }
            EffectError::MissingSetByCaller { effect, key } => write!(
                f,
                "effect {effect} needs a SetByCaller value under {key} and the spec has none"
            ),
            EffectError::AmbiguousSetByCaller { effect, key } => write!(
                f,
                "effect {effect} found several SetByCaller values under {key}"
            ),
            EffectError::UnknownSpecTag { effect } => write!(
                f,
                "effect {effect}: the spec carries a tag or SetByCaller key not in this catalog"
            ),
            EffectError::SourceUnavailable { effect } => write!(
                f,
                "effect {effect} reads a source attribute but has no usable source"
            ),
            EffectError::LevelTooHigh { effect, level } => write!(
                f,
                "effect {effect} applied at level {level}: a lasting effect's level is at most {}",
                super::active::MAX_EFFECT_LEVEL
            ),
            EffectError::NotFinite { effect, value } => {
                write!(f, "effect {effect} computed a non-finite magnitude {value}")
            }
            EffectError::CalculationFailed {
                effect,
                calculation,
                value,
            } => write!(
                f,
                "effect {effect}: calculation `{calculation}` produced a non-finite value {value}"
            ),
            EffectError::CalculationOutputUnknown {
                effect,
                calculation,
                attribute,
            } => write!(
                f,
                "effect {effect}: calculation `{calculation}` wrote attribute #{} that is not in this catalog",
                attribute.index()
            ),
            EffectError::SpanMultiplier { effect, value } => write!(
                f,
                "effect {effect} multiplies a span (an Interval attribute) by {value}, \
                 which at its stack limit is not above 0"
            ),
            EffectError::BadDuration { effect, seconds } => write!(
                f,
                "effect {effect} computed an invalid duration of {seconds} s"
            ),
            EffectError::FollowUpLimit { effect, limit } => write!(
                f,
                "effect {effect} not applied: one operation caused more than {limit} \
                 follow-up effects (do its on_removal, on_expiry or conditional effects loop?)"
            ),
        }
    }
}

impl std::error::Error for EffectError {}
