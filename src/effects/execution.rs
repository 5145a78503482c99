//! Executions: what an instant or periodic execution does to its host
//! (calculations, modifiers into the base, meta attributes drained, cues),
//! and what it reports ([`Execution`]).

use hecs::Entity;
use rand_chacha::ChaCha8Rng;
use smallvec::SmallVec;

use super::active::{ActiveEffect, Captures};
use super::calculation::{Calculations, ExecutionCx, MagnitudeCx, Outputs, TargetRead};
use super::cx::{Defs, EffectCx};
use super::data::{CaptureFrom, CueEvent};
use super::def::{EffectDef, EffectDefs, EffectId};
use super::error::EffectError;
use super::host::EffectHost;
use super::spec::EffectSpec;
use crate::attributes::{executed_into_base, AttributeChanges, AttributeId};
use crate::tags::{Tag, TagSet};
use crate::trace::{TraceCategory, TraceKind};

/// One meta attribute consumed by an execution (`Damage` into `Health`).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct MetaOutcome {
    /// The meta attribute (e.g. `Damage`).
    pub meta: AttributeId,
    /// The attribute it drained into (e.g. `Health`).
    pub drained: AttributeId,
    /// The amount carried: positive damages, negative heals.
    pub amount: f64,
    /// Current value of the drained attribute before.
    pub before: f64,
    /// Current value after (clamped by its bounds).
    pub after: f64,
}

impl MetaOutcome {
    /// A positive amount: damage (even if it changed nothing, at 0 health).
    pub fn is_hit(&self) -> bool {
        self.amount > 0.0
    }

    /// A negative amount: healing.
    pub fn is_heal(&self) -> bool {
        self.amount < 0.0
    }

    /// This execution brought the drained attribute down to zero.
    pub fn reached_zero(&self) -> bool {
        self.before > 0.0 && self.after <= 0.0
    }

    /// How much the drained attribute actually fell (negative when it rose).
    pub fn applied(&self) -> f64 {
        self.before - self.after
    }
}

/// What one instant or periodic execution did.
#[derive(Clone, Debug, PartialEq)]
pub struct Execution {
    /// The effect executed.
    pub effect: EffectId,
    /// Its spec.
    pub spec: EffectSpec,
    /// Meta attributes consumed, in attribute order.
    pub meta: SmallVec<[MetaOutcome; 1]>,
    /// Attributes with an `on_zero` effect that this execution brought from
    /// above zero to zero or below (the context applies their effects).
    pub reached_zero: SmallVec<[AttributeId; 1]>,
}

/// One execution, as its calculations see it.
pub(crate) struct Executing<'a> {
    pub def: &'a EffectDef,
    pub spec: &'a EffectSpec,
    pub stacks: u32,
    pub captures: &'a Captures,
    /// Read target captures from the target now (at application).
    pub target_now: bool,
}

/// What an effect's execution calculations produced: the attribute writes
/// and the tags they marked the execution with.
#[derive(Default)]
pub(crate) struct Calculated {
    pub outputs: Outputs,
    pub marks: SmallVec<[Tag; 2]>,
}

impl EffectHost {
    // ------------------------------------------------------------ execute

    /// Runs an instant or periodic execution: base values change, then
    /// every meta attribute touched is drained into its target. What it
    /// did is left for the context: an instant's in
    /// [`EffectCx::instant`], a periodic one's in
    /// [`EffectCx::executed`]; written there once, not handed back.
    pub(super) fn execute<P>(
        &mut self,
        cx: &mut EffectCx<P>,
        def: &EffectDef,
        mut spec: EffectSpec,
        magnitudes: &[f64],
        stacks: u32,
        captures: &Captures,
    ) -> Result<(), EffectError> {
        // The calculations first: a failure changes nothing.
        let target = cx.entity;
        let mut calculated = Calculated::default();
        if !def.executions.is_empty() {
            let run = Executing {
                def,
                spec: &spec,
                stacks,
                captures,
                // An instant reads its target as it is; a periodic
                // execution reads what was captured at application.
                target_now: def.is_instant(),
            };
            self.run_calculations(Defs::of(cx), cx.rng, target, run, &mut calculated)?;
        }
        // The meta attributes written, each with whether its base is used
        // as scratch (decided at its first write, kept until the drain).
        let mut touched_meta: SmallVec<[(AttributeId, bool); 1]> = SmallVec::new();
        let mut reached_zero: SmallVec<[AttributeId; 1]> = SmallVec::new();
        let modifiers = def
            .modifiers
            .iter()
            .zip(magnitudes)
            .map(|(m, &magnitude)| (m.attribute, m.op, m.op.stacked(magnitude, stacks)));
        let mut writes = modifiers
            .chain(calculated.outputs.iter().copied())
            .peekable();
        // The cue's magnitude: the first value written.
        let cue_magnitude = writes.peek().map_or(0.0, |&(_, _, value)| value);
        for (id, op, value) in writes {
            let attribute = cx.schema.def(id);
            let base = self.attributes.base(id);
            let next = executed_into_base(attribute, base, op, value);
            let scratch = attribute.meta && self.meta_scratch(cx, &mut touched_meta, id);
            if scratch {
                // As `set_base` would: a value that is not finite is not
                // written.
                if next.is_finite() {
                    self.attributes.write_scratch_base(id, next);
                }
            } else if let Ok(changes) = self.attributes.set_base(cx.schema, id, next) {
                self.note_changes(&changes, cx.schema, cx.now, cx.trace, cx.entity);
                note_zero(cx.defs, &changes, &mut reached_zero);
            }
        }
        for &mark in &calculated.marks {
            spec.tags.insert(mark);
        }
        touched_meta.sort_by_key(|&(id, _)| id);
        let mut meta = SmallVec::new();
        for (id, scratch) in touched_meta {
            let amount = self.attributes.base(id);
            // Zeroing the meta attribute always succeeds (0 is finite).
            if scratch {
                self.attributes.write_scratch_base(id, 0.0);
            } else {
                let _ = self.attributes.set_base(cx.schema, id, 0.0);
            }
            let Some(drained) = cx.schema.def(id).drains else {
                continue;
            };
            let before = self.attributes.current(drained);
            let target_base = self.attributes.base(drained) - amount;
            if let Ok(changes) = self.attributes.set_base(cx.schema, drained, target_base) {
                self.note_changes(&changes, cx.schema, cx.now, cx.trace, cx.entity);
                note_zero(cx.defs, &changes, &mut reached_zero);
            }
            meta.push(MetaOutcome {
                meta: id,
                drained,
                amount,
                before,
                after: self.attributes.current(drained),
            });
        }
        let target = cx.entity;
        cx.trace.record_with(cx.now, TraceCategory::EFFECTS, || {
            TraceKind::EffectExecuted {
                target,
                source: spec.source,
                effect: spec.effect,
            }
        });
        self.fire_cues(cx, def, CueEvent::Execute, &spec, cue_magnitude);
        // Built where it stays: a temporary moved there would be a copy.
        if def.is_instant() {
            *cx.instant = Some(Execution {
                effect: spec.effect,
                spec,
                meta,
                reached_zero,
            });
        } else {
            cx.executed.push(Execution {
                effect: spec.effect,
                spec,
                meta,
                reached_zero,
            });
        }
        Ok(())
    }

    /// Runs an effect's execution calculations into `out`: their attribute
    /// writes and the tags they mark the execution with. On success the RNG
    /// has moved past their rolls; a non-finite output is an error naming
    /// its calculation, and then not even the RNG has moved.
    pub(crate) fn run_calculations(
        &self,
        defs: Defs<'_>,
        rng: &mut ChaCha8Rng,
        target: Entity,
        run: Executing<'_>,
        out: &mut Calculated,
    ) -> Result<(), EffectError> {
        let Executing {
            def,
            spec,
            stacks,
            captures,
            target_now,
        } = run;
        // Rolls are drawn from a copy, kept only if every output is usable.
        let mut scratch = rng.clone();
        for &id in &def.executions {
            let registered = defs.calcs.execution_def(id);
            let first = out.outputs.len();
            let mut ecx = ExecutionCx {
                reads: MagnitudeCx::new(
                    spec,
                    &registered.captures,
                    captures,
                    (&self.attributes, TargetRead::PLAIN),
                    target_now,
                ),
                target,
                stacks,
                rng: &mut scratch,
                outputs: &mut out.outputs,
                marks: &mut out.marks,
            };
            registered.calculation.execute(&mut ecx);
            let calculation = || defs.calcs.execution_name(id).to_owned();
            for &(attribute, _, value) in &out.outputs[first..] {
                if !self.attributes.holds(attribute) {
                    return Err(EffectError::CalculationOutputUnknown {
                        effect: defs.effect(spec.effect),
                        calculation: calculation(),
                        attribute,
                    });
                }
                if !value.is_finite() {
                    return Err(EffectError::CalculationFailed {
                        effect: defs.effect(spec.effect),
                        calculation: calculation(),
                        value,
                    });
                }
            }
        }
        *rng = scratch;
        Ok(())
    }

    /// Adds to `captures` the target attributes `def`'s calculations read
    /// once, at application (a periodic effect's snapshot).
    pub(super) fn capture_target(
        &self,
        calcs: &Calculations,
        def: &EffectDef,
        read: TargetRead<'_>,
        captures: &mut Captures,
    ) {
        for capture in def.calculation_captures(calcs) {
            let known = |&(from, attribute, _): &(CaptureFrom, AttributeId, f64)| {
                from == CaptureFrom::Target && attribute == capture.attribute
            };
            if capture.from == CaptureFrom::Target && !capture.live && !captures.iter().any(known) {
                captures.push((
                    CaptureFrom::Target,
                    capture.attribute,
                    read.current(&self.attributes, capture.attribute),
                ));
            }
        }
    }

    /// Whether this execution uses meta attribute `id`'s base as scratch:
    /// decided at its first write (noted in `touched`), when its base is at
    /// rest and nothing watches it (see
    /// [`Attributes::meta_base_is_scratch`](crate::attributes::Attributes::meta_base_is_scratch); a zero rule watches the write
    /// too). Then its writes recompute and note nothing, which is most of
    /// what a hit costs.
    fn meta_scratch<P>(
        &self,
        cx: &EffectCx<P>,
        touched: &mut SmallVec<[(AttributeId, bool); 1]>,
        id: AttributeId,
    ) -> bool {
        if let Some(&(_, scratch)) = touched.iter().find(|(t, _)| *t == id) {
            return scratch;
        }
        let scratch = cx.defs.zero_effect(id).is_none()
            && self.attributes.meta_base_is_scratch(cx.schema, id);
        touched.push((id, scratch));
        scratch
    }

    /// Records `def`'s cues for `event`, with the application they came
    /// from and their magnitude.
    #[inline]
    pub(super) fn fire_cues<'a, P>(
        &self,
        cx: &mut EffectCx<P>,
        def: &EffectDef,
        event: CueEvent,
        origin: impl Into<CueOrigin<'a>>,
        magnitude: f64,
    ) {
        if !def.cues.is_empty() && cx.trace.wants(TraceCategory::CUES) {
            Self::record_cues(cx, def, event, origin.into(), magnitude);
        }
    }

    /// [`fire_cues`](Self::fire_cues)' work, out of line: a crowd fight
    /// records no cues.
    #[cold]
    #[inline(never)]
    fn record_cues<P>(
        cx: &mut EffectCx<P>,
        def: &EffectDef,
        event: CueEvent,
        origin: CueOrigin<'_>,
        magnitude: f64,
    ) {
        for cue in def.cues_on(event) {
            cx.trace.record(
                cx.now,
                TraceKind::Cue {
                    target: cx.entity,
                    source: origin.source,
                    cue,
                    event,
                    effect: Some(origin.effect),
                    magnitude,
                    tags: origin.tags.clone(),
                },
            );
        }
    }
}

/// Adds to `reached` each attribute in `changes` that went from above zero
/// to zero or below and has an `on_zero` effect.
pub(super) fn note_zero(
    defs: &EffectDefs,
    changes: &AttributeChanges,
    reached: &mut SmallVec<[AttributeId; 1]>,
) {
    for change in changes {
        if change.old > 0.0
            && change.new <= 0.0
            && defs.zero_effect(change.attribute).is_some()
            && !reached.contains(&change.attribute)
        {
            reached.push(change.attribute);
        }
    }
}

/// What a cue reports of the application it came from: an executing spec,
/// or an active effect (which keeps its spec in parts).
#[derive(Copy, Clone)]
pub(super) struct CueOrigin<'a> {
    effect: EffectId,
    source: Option<Entity>,
    tags: &'a TagSet,
}

impl<'a> From<&'a EffectSpec> for CueOrigin<'a> {
    fn from(spec: &'a EffectSpec) -> Self {
        Self {
            effect: spec.effect,
            source: spec.source,
            tags: &spec.tags,
        }
    }
}

impl<'a> From<&'a ActiveEffect> for CueOrigin<'a> {
    fn from(effect: &'a ActiveEffect) -> Self {
        Self {
            effect: effect.def,
            source: effect.source,
            tags: effect.tags(),
        }
    }
}
