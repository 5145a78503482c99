//! One active (duration or infinite) effect on an entity.

use hecs::Entity;
use serde::{Deserialize, Serialize};
use slotmap::{new_key_type, Key};
use smallvec::SmallVec;

use super::data::CaptureFrom;
use super::def::{EffectDef, EffectId};
use super::expiry::ExpiryTimer;
use super::spec::{EffectSpec, SetByCallers};
use crate::attributes::{AttributeId, SourceId};
use crate::slots::Versioned;
use crate::tags::{Tag, TagSet};
use crate::time::{SimDuration, SimTime, TimerKey};

new_key_type! {
    /// An active effect on one entity. Generation-checked: the key of a
    /// removed effect never matches a later one. A key is its entity's
    /// alone: each entity numbers its effects from the start, so another
    /// entity's key names nothing there, or one of its own effects. Keep
    /// the entity with the key.
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

/// What shape an effect's window and kept values have, in the byte beside
/// `inhibited`: whether the window is infinite, whether its host keeps an
/// expiry timer for it, and whether its one modifier magnitude and its
/// one SetByCaller value sit inline. Most
/// effects that stay active have at most one of each (a cooldown carries
/// its duration, a buff its one bonus); an effect with more keeps them all
/// in its [`Extras`] box.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
struct Form(u8);

impl Form {
    /// No end: `duration` means nothing.
    const INFINITE: u8 = 1;
    /// Exactly one modifier, its magnitude in `magnitude`.
    const ONE_MAGNITUDE: u8 = 2;
    /// Exactly one SetByCaller value, in `set_by_caller_key` and
    /// `set_by_caller_value`.
    const ONE_SET_BY_CALLER: u8 = 4;
    /// An expiry timer is pending, kept by the host
    /// ([`ExpiryTimers`](super::expiry::ExpiryTimers)).
    const EXPIRY_TIMER: u8 = 8;

    #[inline]
    fn has(self, bit: u8) -> bool {
        self.0 & bit != 0
    }

    #[inline]
    fn set(&mut self, bit: u8, on: bool) {
        self.0 = if on { self.0 | bit } else { self.0 & !bit };
    }
}

/// The one value of `values`, kept inline; `None` when there are none or
/// several (kept in the box).
#[inline]
fn only<T: Copy>(values: &[T]) -> Option<T> {
    match *values {
        [one] => Some(one),
        _ => None,
    }
}

/// A box's list of several values set to `values`: emptied for one or
/// none (which sit inline), rewritten in place when the length is the
/// same, made anew only when it changes.
fn take_list<T: Copy>(list: &mut Box<[T]>, values: &[T]) {
    if values.len() <= 1 {
        if !list.is_empty() {
            *list = Box::default();
        }
    } else if list.len() == values.len() {
        list.copy_from_slice(values);
    } else {
        *list = values.into();
    }
}

/// The highest level a lasting effect is applied at (it keeps its level
/// in sixteen bits; an instant one, which keeps nothing, takes any).
pub const MAX_EFFECT_LEVEL: u32 = u16::MAX as u32;

/// The highest stacking limit (an active effect counts its stacks in
/// sixteen bits).
pub const MAX_STACKS: u32 = u16::MAX as u32;

/// A level that passed [`MAX_EFFECT_LEVEL`]'s check, in the sixteen bits
/// an effect keeps.
#[inline]
fn kept_level(level: u32) -> u16 {
    debug_assert!(
        level <= MAX_EFFECT_LEVEL,
        "a level checked before it is kept"
    );
    u16::try_from(level).unwrap_or(u16::MAX)
}

impl Versioned for ActiveEffect {
    #[inline]
    fn slot_version(&self) -> u32 {
        self.slot_version
    }

    #[inline]
    fn set_slot_version(&mut self, version: u32) {
        self.slot_version = version;
    }
}

/// What the inline SetByCaller key holds when the effect keeps none
/// inline: a fixed value, so two effects that keep the same values compare
/// equal whatever their slots held before.
const NO_KEY: Tag = Tag::from_parts(0, 0);

/// An active duration or infinite effect.
///
/// It keeps the spec it was applied with in parts, not as an
/// [`EffectSpec`]: the definition is already `def`, and what few effects
/// carry (the spec's tags, 40 bytes inline, the captured attribute values
/// and a periodic effect's tick state) sits behind one box made only when
/// there is any ([`Extras`]), as do the magnitudes and SetByCaller values
/// of an effect with more than one of either ([`Form`]). The effects that
/// stay active (cooldowns, combat marks, buffs) seldom have them, and every
/// entity reserves several of these slots, so each byte here is paid per
/// slot per entity (64 bytes, a slot of 64 with its version inside, in
/// room a stack count and level of sixteen bits leave); for the same reason its
/// expiry timer, which effects that end lazily or never do not have, is
/// kept by its host. Saved in the shape it had with a whole spec and its
/// own timer (see [`SavedActive`]).
#[derive(Clone, Debug, PartialEq)]
// In declaration order, what every scan of a host's effects reads first
// (definition, inhibition, the source, the window), then the values: at
// scale a slot is cold, and the scans (the cooldown's time remaining on
// every swing, the stack lookup on every application) then read its first
// forty bytes. The small fields first, packed, so the slot, its version
// inside, is 64 bytes. The saved form does not follow this order.
#[repr(C)]
pub(crate) struct ActiveEffect {
    pub def: EffectId,
    /// Granting nothing and modifying nothing while the ongoing requirements fail.
    pub inhibited: bool,
    /// Infinite or not, and which values sit inline.
    form: Form,
    /// At most the stacking limit, which is at most [`MAX_STACKS`].
    pub stacks: u16,
    /// The spec's level, at most [`MAX_EFFECT_LEVEL`].
    pub level: u16,
    /// Its host's version of its slot
    /// ([`Embedded`](crate::slots::Embedded)): kept here, in room the
    /// sixteen-bit count and level leave, the slot is 64 bytes, not 72.
    slot_version: u32,
    /// The spec's one SetByCaller value, with [`Form::ONE_SET_BY_CALLER`]
    /// (else [`NO_KEY`] and zero).
    set_by_caller_key: Tag,
    /// The spec's source.
    pub source: Option<Entity>,
    /// Start of the current duration window (application or last refresh).
    pub started: SimTime,
    /// Length of the current window, unless infinite.
    duration: SimDuration,
    set_by_caller_value: f64,
    /// The evaluated magnitude of its one modifier, for one stack, with
    /// [`Form::ONE_MAGNITUDE`] (else zero).
    magnitude: f64,
    /// The spec's tags, the captures, the tick state, and the magnitudes
    /// or SetByCaller values when there is more than one; `None` when it
    /// has none of them.
    extras: Option<Box<Extras>>,
}

/// The parts of an [`ActiveEffect`] that few effects have, out of line
/// together in their working form (room for two captures inline): one
/// allocation for an effect with spec tags, captures, a period, more than
/// one modifier or more than one SetByCaller value, or any of them, none
/// for one with none.
#[derive(Clone, Debug, PartialEq)]
struct Extras {
    /// The spec's tags.
    tags: TagSet,
    /// Attribute values captured at application.
    captures: Captures,
    /// The pending periodic execution's timer.
    period_timer: Option<TimerKey>,
    /// When the next periodic execution is due (meaningful with a period).
    next_period: SimTime,
    /// Every modifier's magnitude, when there are more than one (else empty).
    magnitudes: Box<[f64]>,
    /// Every SetByCaller value, when there are more than one (else empty).
    set_by_caller: Box<[(Tag, f64)]>,
}

impl Extras {
    /// The box an effect needs for these parts, if any: spec tags,
    /// captures, or more than one SetByCaller value or magnitude.
    fn boxed(
        tags: TagSet,
        captures: Captures,
        set_by_caller: &[(Tag, f64)],
        magnitudes: &[f64],
    ) -> Option<Box<Self>> {
        let many_values = set_by_caller.len() > 1;
        let many_magnitudes = magnitudes.len() > 1;
        if tags.is_empty() && captures.is_empty() && !many_values && !many_magnitudes {
            return None;
        }
        let mut extras = Self::new(tags, captures);
        if many_values {
            extras.set_by_caller = set_by_caller.into();
        }
        if many_magnitudes {
            extras.magnitudes = magnitudes.into();
        }
        Some(Box::new(extras))
    }

    fn new(tags: TagSet, captures: Captures) -> Self {
        Self {
            tags,
            captures,
            period_timer: None,
            next_period: SimTime::MAX,
            magnitudes: Box::default(),
            set_by_caller: Box::default(),
        }
    }
}

impl ActiveEffect {
    /// A freshly applied effect: one stack, inhibited until its owner
    /// checks the ongoing requirements, no timer yet.
    pub fn new(
        spec: EffectSpec,
        started: SimTime,
        duration: Option<SimDuration>,
        magnitudes: &[f64],
        captures: Captures,
    ) -> Self {
        let (def, level, source, tags, set_by_caller) = spec.into_parts();
        let one_value = only(&set_by_caller);
        let one_magnitude = only(magnitudes);
        let mut form = Form::default();
        form.set(Form::INFINITE, duration.is_none());
        form.set(Form::ONE_SET_BY_CALLER, one_value.is_some());
        form.set(Form::ONE_MAGNITUDE, one_magnitude.is_some());
        let (set_by_caller_key, set_by_caller_value) = one_value.unwrap_or((NO_KEY, 0.0));
        // Built in one piece, where the caller puts it: set field by field
        // after it is built, it is built on the stack and moved (measured
        // 6 % slower on the cooldown's application).
        Self {
            def,
            stacks: 1,
            level: kept_level(level),
            slot_version: 0,
            source,
            inhibited: true,
            form,
            extras: Extras::boxed(tags, captures, &set_by_caller, magnitudes),
            set_by_caller_key,
            set_by_caller_value,
            started,
            duration: duration.unwrap_or(SimDuration::ZERO),
            magnitude: one_magnitude.unwrap_or(0.0),
        }
    }

    /// Rewrites this effect, in its slot, into what
    /// [`new`](Self::new) builds from `spec` at `now` for `duration`,
    /// uninhibited, with no magnitudes or captures: a lazily ending
    /// instance renewed by its successor (every swing's cooldown), with no
    /// new effect built and moved in. Every field is written as `new`
    /// would, save the definition, which is the same. The caller renews
    /// only an effect that ends lazily: one with a timer would leave it
    /// armed in the queue, which the debug build checks.
    pub fn renew(&mut self, spec: EffectSpec, now: SimTime, duration: SimDuration) {
        debug_assert_eq!(self.def, spec.effect);
        debug_assert!(self.ends_lazily() && self.period_timer().is_none());
        let (_, level, source, tags, set_by_caller) = spec.into_parts();
        self.inhibited = false;
        // Finite, with no magnitude (and the SetByCaller bit set below).
        self.form = Form::default();
        self.stacks = 1;
        self.source = source;
        self.started = now;
        self.duration = duration;
        self.magnitude = 0.0;
        self.level = kept_level(level);
        // The box goes or comes only with the spec's tags (a lazily ending
        // effect has no period): a renewal with none, over an instance
        // with none, the swing's, allocates nothing. More than one
        // SetByCaller value go in it below.
        if !tags.is_empty() || self.extras.is_some() {
            self.extras = Extras::boxed(tags, Captures::new(), &[], &[]);
        }
        // The values last, in this order: read earlier, a spec copied just
        // before the call stalls the renewal on loads that span two of the
        // copy's stores (measured up to 5 % slower from a cloned spec).
        // Split as `new` splits them: one inline, several in the box.
        let one_value = only(&set_by_caller);
        self.form.set(Form::ONE_SET_BY_CALLER, one_value.is_some());
        (self.set_by_caller_key, self.set_by_caller_value) = one_value.unwrap_or((NO_KEY, 0.0));
        if set_by_caller.len() > 1 {
            self.extras_mut().set_by_caller = set_by_caller[..].into();
        }
    }

    /// Takes the spec of a re-application onto this stack, as Unreal's
    /// stack takes the newest spec: its level, source, spec tags,
    /// SetByCaller values, evaluated magnitudes (for one stack) and
    /// captures replace this effect's. What belongs to the stack stays:
    /// its count, window, period phase and timer, and its inhibition. The
    /// caller puts held modifiers at the new values.
    #[inline]
    pub fn take_spec(&mut self, spec: &EffectSpec, magnitudes: &[f64], captures: Captures) {
        debug_assert_eq!(self.def, spec.effect);
        let values = spec.set_by_caller_entries();
        self.level = kept_level(spec.level);
        self.source = spec.source;
        let one_value = only(values);
        let one_magnitude = only(magnitudes);
        self.form.set(Form::ONE_SET_BY_CALLER, one_value.is_some());
        self.form.set(Form::ONE_MAGNITUDE, one_magnitude.is_some());
        (self.set_by_caller_key, self.set_by_caller_value) = one_value.unwrap_or((NO_KEY, 0.0));
        self.magnitude = one_magnitude.unwrap_or(0.0);
        let boxes_something = !spec.tags.is_empty()
            || !captures.is_empty()
            || values.len() > 1
            || magnitudes.len() > 1;
        if self.extras.is_some() || boxes_something {
            self.take_boxed_parts(spec, values, magnitudes, captures);
        }
    }

    /// The parts of a taken spec that live in the box: rewritten in the
    /// box the effect has (its tick state, the stack's, stays where it
    /// is), one made only when there is none, and dropped when it is left
    /// holding nothing, as [`new`](Self::new) would leave it.
    #[cold]
    #[inline(never)]
    fn take_boxed_parts(
        &mut self,
        spec: &EffectSpec,
        values: &[(Tag, f64)],
        magnitudes: &[f64],
        captures: Captures,
    ) {
        let Some(extras) = self.extras.as_mut() else {
            self.extras = Extras::boxed(spec.tags.clone(), captures, values, magnitudes);
            return;
        };
        extras.tags.clone_from(&spec.tags);
        extras.captures = captures;
        take_list(&mut extras.set_by_caller, values);
        take_list(&mut extras.magnitudes, magnitudes);
        let holds_nothing = extras.tags.is_empty()
            && extras.captures.is_empty()
            && extras.set_by_caller.is_empty()
            && extras.magnitudes.is_empty()
            && extras.period_timer.is_none()
            && extras.next_period == SimTime::MAX;
        if holds_nothing {
            self.extras = None;
        }
    }

    /// The spec's SetByCaller values, in the order it gave them.
    fn set_by_callers(&self) -> SetByCallers {
        if self.form.has(Form::ONE_SET_BY_CALLER) {
            SetByCallers::from_buf_and_len(
                [
                    (self.set_by_caller_key, self.set_by_caller_value),
                    (NO_KEY, 0.0),
                ],
                1,
            )
        } else {
            self.extras
                .as_ref()
                .map_or_else(SetByCallers::new, |extras| {
                    SetByCallers::from_slice(&extras.set_by_caller)
                })
        }
    }

    /// The evaluated magnitude of each modifier of its definition, for one
    /// stack, in the definition's order.
    #[inline]
    pub fn magnitudes(&self) -> &[f64] {
        if self.form.has(Form::ONE_MAGNITUDE) {
            std::slice::from_ref(&self.magnitude)
        } else {
            self.extras
                .as_ref()
                .map_or(&[], |extras| &extras.magnitudes)
        }
    }

    /// The magnitudes, to update where they are kept (a live capture
    /// moving them): as many as the definition has modifiers, always.
    pub fn magnitudes_mut(&mut self) -> &mut [f64] {
        if self.form.has(Form::ONE_MAGNITUDE) {
            std::slice::from_mut(&mut self.magnitude)
        } else {
            self.extras
                .as_mut()
                .map_or(&mut [], |extras| &mut extras.magnitudes)
        }
    }

    /// The spec it was applied with, rebuilt.
    pub fn spec(&self) -> EffectSpec {
        EffectSpec::from_parts(
            self.def,
            u32::from(self.level),
            self.source,
            self.tags().clone(),
            self.set_by_callers(),
        )
    }

    /// The pending periodic execution's timer.
    pub fn period_timer(&self) -> Option<TimerKey> {
        self.extras.as_ref().and_then(|extras| extras.period_timer)
    }

    /// Does it hold an expiry timer (kept by its host)?
    #[inline]
    pub fn holds_expiry_timer(&self) -> bool {
        self.form.has(Form::EXPIRY_TIMER)
    }

    /// Notes whether it holds an expiry timer; its host, which keeps the
    /// timer, calls this as it arms or takes one.
    #[inline]
    pub(super) fn note_expiry_timer(&mut self, held: bool) {
        self.form.set(Form::EXPIRY_TIMER, held);
    }

    /// Takes the pending periodic execution's timer, leaving none.
    pub fn take_period_timer(&mut self) -> Option<TimerKey> {
        self.extras
            .as_mut()
            .and_then(|extras| extras.period_timer.take())
    }

    /// Notes the pending periodic execution's timer.
    pub fn set_period_timer(&mut self, timer: TimerKey) {
        self.extras_mut().period_timer = Some(timer);
    }

    /// When the next periodic execution is due ([`SimTime::MAX`] without
    /// a period).
    pub fn next_period(&self) -> SimTime {
        self.extras
            .as_ref()
            .map_or(SimTime::MAX, |extras| extras.next_period)
    }

    /// Sets when the next periodic execution is due.
    pub fn set_next_period(&mut self, at: SimTime) {
        if at != SimTime::MAX || self.extras.is_some() {
            self.extras_mut().next_period = at;
        }
    }

    /// The extras box, made empty if there was none (a periodic effect's
    /// first tick state).
    fn extras_mut(&mut self) -> &mut Extras {
        self.extras
            .get_or_insert_with(|| Box::new(Extras::new(TagSet::new(), Captures::new())))
    }

    /// The tags of the spec it was applied with.
    pub fn tags(&self) -> &TagSet {
        static NONE: TagSet = TagSet::new();
        self.extras.as_ref().map_or(&NONE, |extras| &extras.tags)
    }

    /// The attribute values captured when it was applied.
    pub fn captures(&self) -> &[(CaptureFrom, AttributeId, f64)] {
        self.extras.as_ref().map_or(&[], |extras| &extras.captures)
    }

    /// Length of the current window; `None` when infinite.
    pub fn duration(&self) -> Option<SimDuration> {
        (!self.form.has(Form::INFINITE)).then_some(self.duration)
    }

    /// Starts a new window of `duration` (`None`: infinite) at `now`.
    pub fn restart(&mut self, now: SimTime, duration: Option<SimDuration>) {
        self.started = now;
        self.form.set(Form::INFINITE, duration.is_none());
        self.duration = duration.unwrap_or(SimDuration::ZERO);
    }

    /// When the current window ends ([`SimTime::MAX`] if infinite).
    pub fn expires_at(&self) -> SimTime {
        match self.duration() {
            Some(duration) => self.started + duration,
            None => SimTime::MAX,
        }
    }

    /// The magnitude its add and remove cues carry: its first modifier's
    /// (`def`'s) for all its stacks, by the stacking rule its modifiers
    /// hold it with (×0.9 at three stacks is ×0.7; an override does not
    /// scale); zero without modifiers.
    pub fn cue_magnitude(&self, def: &EffectDef) -> f64 {
        match (self.magnitudes().first(), def.modifiers.first()) {
            (Some(&magnitude), Some(modifier)) => {
                modifier.op.stacked(magnitude, u32::from(self.stacks))
            }
            _ => 0.0,
        }
    }

    /// Does it end lazily (see [`EffectDef::ends_lazily`](super::EffectDef::ends_lazily))?
    /// Such an effect never arms an expiry timer, while every other effect
    /// with an end holds one from its application to its end; so this is
    /// read from the effect itself, saved or not.
    #[inline]
    pub fn ends_lazily(&self) -> bool {
        !self.form.has(Form::INFINITE | Form::EXPIRY_TIMER)
    }

    /// True when it ended lazily by `now` and is only waiting to be
    /// cleared: every read treats it as gone.
    #[inline]
    pub fn has_ended(&self, now: SimTime) -> bool {
        self.ends_lazily() && self.expires_at() <= now
    }

    /// Time left at `now` ([`SimDuration::MAX`] if infinite).
    pub fn remaining(&self, now: SimTime) -> SimDuration {
        match self.duration() {
            Some(_) => self.expires_at().saturating_since(now),
            None => SimDuration::MAX,
        }
    }
}

/// An [`ActiveEffect`] as saved: the shape it had when it kept a whole
/// spec and its own expiry timer, so saves and checksums are unchanged.
/// Read owned ([`LoadedEffect`]); written from borrows
/// ([`SavedActiveRef`]), so a save copies no effect.
#[derive(Deserialize)]
#[serde(rename = "ActiveEffect")]
struct SavedActive {
    def: EffectId,
    spec: EffectSpec,
    stacks: u32,
    started: SimTime,
    duration: Option<SimDuration>,
    expiry_timer: Option<TimerKey>,
    expiry_timer_at: SimTime,
    period_timer: Option<TimerKey>,
    next_period: SimTime,
    inhibited: bool,
    magnitudes: SmallVec<[f64; 2]>,
    captures: Captures,
}

/// [`SavedActive`]'s fields, in its order, borrowed from the effect.
#[derive(Serialize)]
#[serde(rename = "ActiveEffect")]
struct SavedActiveRef<'a> {
    def: EffectId,
    spec: SavedSpecRef<'a>,
    stacks: u32,
    started: SimTime,
    duration: Option<SimDuration>,
    expiry_timer: Option<TimerKey>,
    expiry_timer_at: SimTime,
    period_timer: Option<TimerKey>,
    next_period: SimTime,
    inhibited: bool,
    magnitudes: &'a [f64],
    captures: &'a [(CaptureFrom, AttributeId, f64)],
}

/// An [`EffectSpec`] as saved (its fields, in its order), borrowed from
/// the parts an effect keeps: a save or a state checksum, once per frame
/// under rollback, clones no tags (the SetByCaller values are copied out
/// of their split storage, inline for up to two).
#[derive(Serialize)]
#[serde(rename = "EffectSpec")]
struct SavedSpecRef<'a> {
    effect: EffectId,
    level: u32,
    source: Option<Entity>,
    tags: &'a TagSet,
    set_by_caller: SetByCallers,
}

/// An effect as saved, with the expiry timer its host keeps for it.
pub(crate) struct SavedEffect<'a> {
    pub effect: &'a ActiveEffect,
    pub expiry: Option<ExpiryTimer>,
}

impl Serialize for SavedEffect<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let effect = self.effect;
        SavedActiveRef {
            def: effect.def,
            spec: SavedSpecRef {
                effect: effect.def,
                level: u32::from(effect.level),
                source: effect.source,
                tags: effect.tags(),
                set_by_caller: effect.set_by_callers(),
            },
            stacks: u32::from(effect.stacks),
            started: effect.started,
            duration: effect.duration(),
            expiry_timer: self.expiry.map(|e| e.timer),
            // An effect without a timer always saved zero here: it set
            // zero when made or renewed, and lost its timer only on its
            // way out.
            expiry_timer_at: self.expiry.map_or(SimTime::ZERO, |e| e.at),
            period_timer: effect.period_timer(),
            next_period: effect.next_period(),
            inhibited: effect.inhibited,
            magnitudes: effect.magnitudes(),
            captures: effect.captures(),
        }
        .serialize(serializer)
    }
}

/// An effect read back, with the expiry timer its host is to keep for it.
#[derive(Debug, Deserialize)]
#[serde(try_from = "SavedActive")]
pub(crate) struct LoadedEffect {
    pub effect: ActiveEffect,
    pub expiry: Option<ExpiryTimer>,
}

/// A saved effect whose spec names another definition than its own cannot
/// be kept (the effect holds the definition once).
impl TryFrom<SavedActive> for LoadedEffect {
    type Error = String;

    fn try_from(saved: SavedActive) -> Result<Self, String> {
        if saved.spec.effect != saved.def {
            return Err(format!(
                "an active effect of effect #{} carries a spec of effect #{}",
                saved.def.index(),
                saved.spec.effect.index()
            ));
        }
        if saved.spec.level > MAX_EFFECT_LEVEL {
            return Err(format!(
                "an active effect of effect #{} is at level {}, above the highest, {MAX_EFFECT_LEVEL}",
                saved.def.index(),
                saved.spec.level
            ));
        }
        let Ok(stacks) = u16::try_from(saved.stacks) else {
            return Err(format!(
                "an active effect of effect #{} holds {} stacks, above the highest, {MAX_STACKS}",
                saved.def.index(),
                saved.stacks
            ));
        };
        let mut effect = ActiveEffect::new(
            saved.spec,
            saved.started,
            saved.duration,
            &saved.magnitudes,
            saved.captures,
        );
        effect.stacks = stacks;
        effect.inhibited = saved.inhibited;
        effect.note_expiry_timer(saved.expiry_timer.is_some());
        if let Some(timer) = saved.period_timer {
            effect.set_period_timer(timer);
        }
        effect.set_next_period(saved.next_period);
        let expiry = saved.expiry_timer.map(|timer| ExpiryTimer {
            timer,
            at: saved.expiry_timer_at,
        });
        Ok(Self { effect, expiry })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use slotmap::KeyData;

    /// Every entity reserves room for a few of these: the spec's tags, the
    /// captures and a periodic effect's tick state sit out of line, in one
    /// box made only when there is any of them, and one SetByCaller value
    /// inline.
    #[test]
    fn an_active_effect_keeps_what_few_effects_carry_out_of_line() {
        use crate::slots::Embedded;
        assert_eq!(std::mem::size_of::<ActiveEffect>(), 64);
        assert_eq!(
            std::mem::size_of::<Embedded<ActiveEffect>>(),
            64,
            "its slot keeps the version inside, the link beside its niche"
        );
        let captured = |captures: &[(CaptureFrom, AttributeId, f64)]| {
            ActiveEffect::new(
                EffectSpec::new(EffectId::new(1)),
                SimTime::ZERO,
                None,
                &[],
                Captures::from_slice(captures),
            )
        };
        assert!(captured(&[]).extras.is_none());
        let capture = (CaptureFrom::Source, AttributeId::new(1), 7.0);
        let effect = captured(&[capture]);
        assert_eq!(effect.captures(), &[capture]);
        assert!(effect.tags().is_empty());
    }

    /// A renewed instance is, field for field, the effect a fresh
    /// application of its successor's spec builds: a new source, level,
    /// spec tags (gained, changed or lost) and SetByCaller values (one,
    /// or more than the one kept inline, either way), and a new window,
    /// with nothing left of what the slot held before.
    #[test]
    fn a_renewed_effect_is_the_one_its_successor_would_build() {
        let effect = EffectId::new(2);
        let key = Tag::from_parts(3, 4);
        let entity = |id: u64| hecs::Entity::from_bits((1 << 32) | id).unwrap();
        let spec = |source, level, tag: Option<Tag>, seconds| {
            let spec = EffectSpec::new(effect)
                .with_source(entity(source))
                .with_level(level)
                .with_set_by_caller(key, seconds);
            match tag {
                Some(tag) => spec.with_tag(tag),
                None => spec,
            }
        };
        let built = |spec: EffectSpec, at: u64, millis: u64, magnitudes: &[f64]| {
            let duration = SimDuration::from_millis(millis);
            let mut built = ActiveEffect::new(
                spec,
                SimTime::from_micros(at),
                Some(duration),
                magnitudes,
                Captures::new(),
            );
            built.inhibited = false;
            built
        };
        let (a, b) = (Some(Tag::from_parts(5, 6)), Some(Tag::from_parts(6, 7)));
        let capture = (CaptureFrom::Source, AttributeId::new(1), 7.0);
        let other_key = Tag::from_parts(4, 5);
        let cases = [
            (None, None, false, false),
            (None, a, false, true),
            (a, b, true, true),
            (a, None, true, false),
        ];
        // A second value spills past the one kept inline.
        let with_values = |spec: EffectSpec, two: bool| {
            if two {
                spec.with_set_by_caller(other_key, 0.5)
            } else {
                spec
            }
        };
        for (old_tag, new_tag, old_two, new_two) in cases {
            let old = with_values(spec(1, 1, old_tag, 2.4), old_two);
            // Whatever else the slot held goes too: magnitudes (one
            // inline or two in the box), captures, stacks, inhibition.
            let stale: &[f64] = if old_two { &[2.5, 1.5] } else { &[2.5] };
            let mut renewed = built(old, 100, 2_400, stale);
            if old_tag.is_some() {
                renewed.extras.as_mut().unwrap().captures.push(capture);
            }
            renewed.stacks = 3;
            renewed.inhibited = true;
            let successor = with_values(spec(2, 3, new_tag, 1.8), new_two);
            renewed.renew(
                successor.clone(),
                SimTime::from_micros(2_500_100),
                SimDuration::from_millis(1_800),
            );
            assert_eq!(
                renewed,
                built(successor.clone(), 2_500_100, 1_800, &[]),
                "{old_tag:?} -> {new_tag:?}"
            );
            assert_eq!(renewed.spec(), successor);
        }
    }

    /// The form saves had when the effect kept a whole spec.
    #[derive(Serialize, Deserialize)]
    #[serde(rename = "ActiveEffect")]
    struct WholeSpecEffect {
        def: EffectId,
        spec: EffectSpec,
        stacks: u32,
        started: SimTime,
        duration: Option<SimDuration>,
        expiry_timer: Option<TimerKey>,
        expiry_timer_at: SimTime,
        period_timer: Option<TimerKey>,
        next_period: SimTime,
        inhibited: bool,
        magnitudes: SmallVec<[f64; 2]>,
        captures: Box<[(CaptureFrom, AttributeId, f64)]>,
    }

    fn whole(spec: EffectSpec, duration: Option<SimDuration>) -> WholeSpecEffect {
        WholeSpecEffect {
            def: spec.effect,
            spec,
            stacks: 3,
            started: SimTime::from_micros(1_500),
            duration,
            expiry_timer: Some(KeyData::from_ffi((1 << 32) | 4).into()),
            expiry_timer_at: SimTime::from_micros(2_000),
            period_timer: None,
            next_period: SimTime::MAX,
            inhibited: false,
            magnitudes: SmallVec::from_slice(&[2.5]),
            captures: Box::new([(CaptureFrom::Source, AttributeId::new(1), 7.0)]),
        }
    }

    /// Saves and checksums read the same whether the spec had tags or
    /// not, one SetByCaller value or more, a window or none, captures or
    /// none, a pending tick or none (the tick state and captures kept out
    /// of line, or no box at all); the effect rebuilds the spec it was
    /// given.
    #[test]
    fn an_active_effect_saves_as_it_did_with_a_whole_spec() {
        let key = Tag::from_parts(3, 4);
        let tagged = EffectSpec::new(EffectId::new(2))
            .with_level(4)
            .with_source(hecs::Entity::from_bits((1 << 32) | 9).unwrap())
            .with_tag(Tag::from_parts(5, 6))
            .with_set_by_caller(key, 1.25);
        let plain = EffectSpec::new(EffectId::new(1)).with_set_by_caller(key, 20.0);
        let two_values = plain.clone().with_set_by_caller(Tag::from_parts(4, 5), 3.5);
        let ticking = |mut old: WholeSpecEffect| {
            old.period_timer = Some(KeyData::from_ffi((2 << 32) | 7).into());
            old.next_period = SimTime::from_micros(1_750);
            old
        };
        // A tick due after the expiry is never armed: its instant is kept,
        // with no timer.
        let unarmed = |mut old: WholeSpecEffect| {
            old.next_period = SimTime::from_micros(9_000);
            old
        };
        // Ending lazily: no expiry timer, and zero for its instant.
        let lazy = |mut old: WholeSpecEffect| {
            old.expiry_timer = None;
            old.expiry_timer_at = SimTime::ZERO;
            old
        };
        let without_captures = |mut old: WholeSpecEffect| {
            old.captures = Box::new([]);
            old
        };
        // No modifier, or two: none inline, or both in the box.
        let with_magnitudes = |mut old: WholeSpecEffect, magnitudes: &[f64]| {
            old.magnitudes = SmallVec::from_slice(magnitudes);
            old
        };
        let window = Some(SimDuration::from_millis(2_400));
        for old in [
            whole(tagged.clone(), window),
            ticking(whole(tagged, window)),
            whole(plain.clone(), None),
            whole(two_values.clone(), window),
            ticking(whole(plain.clone(), window)),
            ticking(without_captures(whole(plain.clone(), window))),
            unarmed(without_captures(whole(plain.clone(), window))),
            without_captures(whole(plain.clone(), window)),
            with_magnitudes(without_captures(whole(plain.clone(), window)), &[]),
            with_magnitudes(without_captures(whole(plain.clone(), None)), &[2.5, -4.0]),
            with_magnitudes(whole(two_values.clone(), window), &[1.0, 2.0, 3.0]),
            with_magnitudes(whole(EffectSpec::new(EffectId::new(1)), window), &[0.5]),
            lazy(with_magnitudes(whole(plain.clone(), window), &[])),
        ] {
            let (spec, duration) = (old.spec.clone(), old.duration);
            let text = ron::to_string(&old).unwrap();
            let LoadedEffect { effect, expiry } = ron::from_str(&text).unwrap();
            assert_eq!(expiry.map(|e| e.timer), old.expiry_timer);
            if let Some(expiry) = expiry {
                assert_eq!(expiry.at, old.expiry_timer_at);
            }
            assert_eq!(effect.holds_expiry_timer(), old.expiry_timer.is_some());
            assert_eq!(
                effect.ends_lazily(),
                old.expiry_timer.is_none() && duration.is_some()
            );
            assert_eq!(effect.spec(), spec);
            assert_eq!(effect.tags(), &spec.tags);
            assert_eq!(effect.captures(), &*old.captures);
            assert_eq!(effect.duration(), duration);
            assert_eq!(effect.stacks, 3);
            assert_eq!(effect.period_timer(), old.period_timer);
            assert_eq!(effect.next_period(), old.next_period);
            assert_eq!(effect.magnitudes(), &*old.magnitudes);
            let boxed = !spec.tags.is_empty()
                || !old.captures.is_empty()
                || old.magnitudes.len() > 1
                || spec.set_by_caller_entries().len() > 1;
            let ticks = old.period_timer.is_some() || old.next_period != SimTime::MAX;
            assert_eq!(effect.extras.is_some(), boxed || ticks);
            let saved = SavedEffect {
                effect: &effect,
                expiry,
            };
            assert_eq!(ron::to_string(&saved).unwrap(), text);
            assert_eq!(
                serde_json::to_string(&saved).unwrap(),
                serde_json::to_string(&old).unwrap()
            );
            assert_eq!(
                crate::checksum::checksum_of(&saved),
                crate::checksum::checksum_of(&old)
            );
        }
    }

    /// The effect holds its definition once, so a save whose spec names
    /// another is refused, naming both.
    #[test]
    fn a_saved_effect_whose_spec_names_another_definition_is_refused() {
        let mut old = whole(EffectSpec::new(EffectId::new(2)), None);
        old.def = EffectId::new(5);
        let error = ron::from_str::<LoadedEffect>(&ron::to_string(&old).unwrap()).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("an active effect of effect #5 carries a spec of effect #2"),
            "{error}"
        );
    }
}
