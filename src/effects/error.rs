//! [`EffectError`]: why an effect could not be applied.

use std::fmt;

use hecs::Entity;

use super::def::EffectId;
use crate::tags::Tag;

/// An application that failed. Nothing was changed.
///
/// Ids are resolved to names by [`Gas::describe_error`](crate::Gas::describe_error).
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum EffectError {
    /// The target is despawned or has no ability system.
    NoSuchTarget(Entity),
    /// The effect id is not in this catalog.
    UnknownEffect(EffectId),
    /// A `SetByCaller` magnitude's key is not on the spec.
    MissingSetByCaller {
        /// The effect.
        effect: EffectId,
        /// The key it asked for.
        key: Tag,
    },
    /// Two spec entries sit under one `SetByCaller` key.
    AmbiguousSetByCaller {
        /// The effect.
        effect: EffectId,
        /// The key it asked for.
        key: Tag,
    },
    /// A source attribute was needed but the source is gone or has none.
    SourceUnavailable {
        /// The effect.
        effect: EffectId,
    },
    /// A magnitude evaluated to NaN or infinity.
    NotFinite {
        /// The effect.
        effect: EffectId,
        /// The value.
        value: f64,
    },
    /// A duration magnitude is not a usable number of seconds.
    BadDuration {
        /// The effect.
        effect: EffectId,
        /// The seconds it evaluated to.
        seconds: f64,
    },
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
                "effect #{} needs a SetByCaller value under tag #{} and the spec has none",
                effect.index(),
                key.index()
            ),
            EffectError::AmbiguousSetByCaller { effect, key } => write!(
                f,
                "effect #{} found several SetByCaller values under tag #{}",
                effect.index(),
                key.index()
            ),
            EffectError::SourceUnavailable { effect } => {
                write!(
                    f,
                    "effect #{} reads a source attribute but has no usable source",
                    effect.index()
                )
            }
            EffectError::NotFinite { effect, value } => {
                write!(
                    f,
                    "effect #{} computed a non-finite magnitude {value}",
                    effect.index()
                )
            }
            EffectError::BadDuration { effect, seconds } => {
                write!(
                    f,
                    "effect #{} computed an invalid duration of {seconds} s",
                    effect.index()
                )
            }
        }
    }
}

impl std::error::Error for EffectError {}
