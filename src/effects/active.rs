//! One active (duration or infinite) effect on an entity.

use serde::{Deserialize, Serialize};
use slotmap::{new_key_type, Key};
use smallvec::SmallVec;

use super::data::CaptureFrom;
use super::def::EffectId;
use super::spec::EffectSpec;
use crate::attributes::{AttributeId, SourceId};
use crate::time::{SimDuration, SimTime, TimerKey};

new_key_type! {
    /// An active effect on one entity. Generation-checked: the key of a
    /// removed effect never matches a later one.
    pub struct EffectKey;
}

impl EffectKey {
    /// The modifier source id this effect's modifiers carry.
    pub(crate) fn source_id(self) -> SourceId {
        SourceId(self.data().as_ffi())
    }
}

/// Attribute values read when the spec was applied: the source's, for
/// attribute magnitudes and calculations that read it, and the target's,
/// for calculations that capture it once. Live source values are read
/// again before each periodic execution.
pub(crate) type Captures = SmallVec<[(CaptureFrom, AttributeId, f64); 2]>;

/// [`Captures`] as an active effect keeps them: a boxed slice, 16 bytes
/// and no allocation when empty (most effects capture nothing), where the
/// inline room of the working form would take 40 in every effect slot.
/// Saved the same way (a list).
pub(crate) type StoredCaptures = Box<[(CaptureFrom, AttributeId, f64)]>;

/// An active duration or infinite effect.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct ActiveEffect {
    pub def: EffectId,
    pub spec: EffectSpec,
    pub stacks: u32,
    /// Start of the current duration window (application or last refresh).
    pub started: SimTime,
    /// Length of the current window; `None` when infinite.
    pub duration: Option<SimDuration>,
    pub expiry_timer: Option<TimerKey>,
    /// When the pending expiry timer fires. A refresh that only pushes the
    /// expiry later keeps the timer; it re-arms itself when it fires early.
    pub expiry_timer_at: SimTime,
    pub period_timer: Option<TimerKey>,
    /// When the next periodic execution is due (meaningful with a period).
    pub next_period: SimTime,
    /// Granting nothing and modifying nothing while the ongoing requirements fail.
    pub inhibited: bool,
    /// Evaluated magnitude of each modifier, for one stack.
    pub magnitudes: SmallVec<[f64; 2]>,
    /// Attribute values captured at application.
    pub captures: StoredCaptures,
}

impl ActiveEffect {
    /// When the current window ends ([`SimTime::MAX`] if infinite).
    pub fn expires_at(&self) -> SimTime {
        match self.duration {
            Some(duration) => self.started + duration,
            None => SimTime::MAX,
        }
    }

    /// The magnitude its add and remove cues carry: its first modifier's,
    /// for all its stacks (zero without modifiers).
    pub fn cue_magnitude(&self) -> f64 {
        self.magnitudes
            .first()
            .map_or(0.0, |m| m * f64::from(self.stacks))
    }

    /// Time left at `now` ([`SimDuration::MAX`] if infinite).
    pub fn remaining(&self, now: SimTime) -> SimDuration {
        match self.duration {
            Some(_) => self.expires_at().saturating_since(now),
            None => SimDuration::MAX,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every entity reserves room for a few of these; what an effect that
    /// captures nothing keeps of its captures is an empty box.
    #[test]
    fn an_active_effect_keeps_its_captures_out_of_line() {
        assert_eq!(std::mem::size_of::<StoredCaptures>(), 16);
        assert!(
            std::mem::size_of::<ActiveEffect>() <= 208,
            "{}",
            std::mem::size_of::<ActiveEffect>()
        );
    }
}
