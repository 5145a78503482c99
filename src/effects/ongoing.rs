//! What keeps an [`EffectHost`]'s active effects going once added:
//! inhibition by ongoing requirements, the life rule, and live captures
//! of a source's attributes.

use hecs::Entity;
use smallvec::SmallVec;

use super::active::{ActiveEffect, Captures, EffectKey};
use super::calculation::{CalculationId, Calculations, CaptureDef, TargetRead};
use super::cx::{Defs, EffectCx, FollowUp, TagLog};
use super::data::{CaptureFrom, CueEvent, PeriodicWhileDead};
use super::def::{EffectDefs, Magnitude};
use super::host::EffectHost;
use crate::attributes::AttributeId;
use crate::trace::{RemovalReason, TraceKind};

impl EffectHost {
    /// Starts or stops an effect's modifiers and granted tags, and fires
    /// its add cues as it starts and its remove cues as it stops (as
    /// Unreal's inhibition does: an effect held back plays no cue, and one
    /// that resumes plays its add cues again).
    pub(crate) fn set_inhibited<P>(
        &mut self,
        cx: &mut EffectCx<P>,
        key: EffectKey,
        inhibited: bool,
    ) {
        if self.switch_inhibited(cx, key, inhibited) {
            let effect = &self.effects[key];
            let def = cx.defs.def(effect.def);
            let event = if inhibited {
                CueEvent::Remove
            } else {
                CueEvent::Add
            };
            self.fire_cues(cx, def, event, effect, effect.cue_magnitude(def));
        }
    }

    /// [`set_inhibited`](Self::set_inhibited) without the cues (a removal
    /// fires its own, after its record); `true` when it changed anything.
    pub(crate) fn switch_inhibited<P>(
        &mut self,
        cx: &mut EffectCx<P>,
        key: EffectKey,
        inhibited: bool,
    ) -> bool {
        let effect = &mut self.effects[key];
        if effect.inhibited == inhibited {
            return false;
        }
        effect.inhibited = inhibited;
        let def_id = effect.def;
        let def = cx.defs.def(def_id);
        if inhibited {
            if def.holds_modifiers() {
                let changes = self.attributes.remove_modifiers(cx.schema, key.source_id());
                self.note_changes(&changes, cx.schema, cx.now, cx.trace, cx.entity);
            }
            // The tags were granted when the effect became uninhibited.
            let _ = self.release_tags(&def.granted_tags, &mut TagLog::of(cx));
        } else {
            self.restack(cx, key);
            self.grant_tags(&def.granted_tags, &mut TagLog::of(cx));
        }
        if !def.granted_abilities.is_empty() {
            let level = self.effects[key].level;
            cx.follow_ups.push_back((
                cx.entity,
                FollowUp::Grants {
                    effect: def_id,
                    level: u32::from(level),
                    grant: !inhibited,
                },
            ));
        }
        true
    }

    /// Brings every effect's inhibition in line with its ongoing
    /// requirements, repeating until nothing changes (inhibiting one effect
    /// can release tags another depends on).
    pub(crate) fn reconcile_inhibition<P>(&mut self, cx: &mut EffectCx<P>) {
        for _ in 0..=self.effects.len() {
            let flip = self
                .aside
                .listening()
                .as_slice()
                .iter()
                .find_map(|&key| Some((key, self.inhibition_due(cx.defs, key)?)));
            let Some((key, inhibit)) = flip else {
                return;
            };
            self.change_inhibition(cx, key, inhibit);
        }
    }

    /// Whether `key` should be inhibited, when its ongoing requirements,
    /// read against the owned tags as they stand, say otherwise than its
    /// inhibition: `None` when they agree (or it has none).
    pub(crate) fn inhibition_due(&self, defs: &EffectDefs, key: EffectKey) -> Option<bool> {
        let effect = &self.effects[key];
        let def = defs.def(effect.def);
        if def.ongoing_requirements.is_empty() {
            return None;
        }
        let should_inhibit = !def.ongoing_requirements.matches(self.tags.tags());
        (should_inhibit != effect.inhibited).then_some(should_inhibit)
    }

    /// Inhibits or resumes `key` (its cues, tags and modifiers), and
    /// records it.
    pub(crate) fn change_inhibition<P>(
        &mut self,
        cx: &mut EffectCx<P>,
        key: EffectKey,
        inhibit: bool,
    ) {
        let def = self.effects[key].def;
        self.set_inhibited(cx, key, inhibit);
        cx.trace.record(
            cx.now,
            TraceKind::EffectInhibited {
                target: cx.entity,
                effect: def,
                inhibited: inhibit,
            },
        );
    }

    /// Applies the `life` rule's `Remove` policy: a dead owner loses its
    /// periodic effects (those without `affects_dead`).
    pub(crate) fn reconcile_life<P>(&mut self, cx: &mut EffectCx<P>) {
        let life = cx.defs.life();
        if life.periodic != PeriodicWhileDead::Remove || !self.is_dead(cx.defs) {
            return;
        }
        self.remove_where(cx, RemovalReason::OwnerDied, |def, _| {
            def.period.is_some() && !def.affects_dead
        });
    }

    /// Re-reads live attribute captures and updates the modifiers of the
    /// effects whose magnitude moved. `source_value` reads another entity.
    pub(crate) fn refresh_live<P>(
        &mut self,
        cx: &mut EffectCx<P>,
        source_value: impl Fn(Entity, AttributeId) -> Option<f64>,
    ) {
        let keys: SmallVec<[EffectKey; 4]> = self
            .aside
            .listening()
            .as_slice()
            .iter()
            .copied()
            .filter(|&k| cx.defs.def(self.effects[k].def).has_live_capture)
            .collect();
        for key in keys {
            let effect = &self.effects[key];
            let def = cx.defs.def(effect.def);
            let mut magnitudes: SmallVec<[f64; 2]> = SmallVec::from_slice(effect.magnitudes());
            for (slot, modifier) in magnitudes.iter_mut().zip(&def.modifiers) {
                let capture = match modifier.magnitude {
                    Magnitude::Attribute(capture) if capture.live => capture,
                    Magnitude::Custom(id) => {
                        if let Some(value) =
                            self.live_custom_magnitude(cx, effect, id, &source_value)
                        {
                            *slot = value;
                        }
                        continue;
                    }
                    _ => continue,
                };
                let value = match capture.from {
                    CaptureFrom::Target => Some(self.attributes.current(capture.attribute)),
                    CaptureFrom::Source => effect
                        .source
                        .and_then(|s| source_value(s, capture.attribute)),
                };
                // A vanished source keeps the last value it gave.
                if let Some(value) = value.map(|v| capture.apply(v)).filter(|v| v.is_finite()) {
                    *slot = value;
                }
            }
            if magnitudes.as_slice() != effect.magnitudes() {
                self.effects[key]
                    .magnitudes_mut()
                    .copy_from_slice(&magnitudes);
                self.restack(cx, key);
            }
        }
    }

    /// A held custom magnitude worked out again with its live captures
    /// read now (a source's through `source_value`) and the rest as kept
    /// at application; `None` when it reads nothing live, or fails (the
    /// held value stays, as for a vanished source).
    fn live_custom_magnitude<P>(
        &self,
        cx: &EffectCx<P>,
        effect: &ActiveEffect,
        id: CalculationId,
        source_value: &impl Fn(Entity, AttributeId) -> Option<f64>,
    ) -> Option<f64> {
        let reads = &cx.calcs.magnitude_def(id).captures;
        if !reads.iter().any(|c| c.live) {
            return None;
        }
        let mut captures = Captures::from_slice(effect.captures());
        for capture in reads
            .iter()
            .filter(|c| c.live && c.from == CaptureFrom::Source)
        {
            let fresh = effect
                .source
                .and_then(|s| source_value(s, capture.attribute));
            let kept = captures
                .iter_mut()
                .find(|(f, a, _)| *f == CaptureFrom::Source && *a == capture.attribute);
            if let (Some(value), Some(kept)) = (fresh, kept) {
                kept.2 = value;
            }
        }
        self.custom_magnitude(
            Defs::of(cx),
            id,
            &effect.spec(),
            &captures,
            false,
            TargetRead::PLAIN,
        )
        .ok()
    }

    /// The entities whose attributes this host's live effects read.
    pub(crate) fn live_sources(
        &self,
        defs: &EffectDefs,
        calcs: &Calculations,
    ) -> SmallVec<[Entity; 2]> {
        let mut sources = SmallVec::new();
        for effect in self.listening_effects() {
            let def = defs.def(effect.def);
            let live_source = |c: &CaptureDef| c.live && c.from == CaptureFrom::Source;
            let reads_source = def.modifiers.iter().any(|m| match m.magnitude {
                Magnitude::Attribute(c) => c.live && c.from == CaptureFrom::Source,
                Magnitude::Custom(id) => calcs.magnitude_def(id).captures.iter().any(live_source),
                _ => false,
            });
            if let (true, Some(source)) = (reads_source, effect.source) {
                if !sources.contains(&source) {
                    sources.push(source);
                }
            }
        }
        sources
    }
}
