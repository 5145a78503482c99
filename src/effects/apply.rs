//! Applying a spec to an [`EffectHost`]: the chance roll, every check
//! before any change, then an execution or an active instance.

use smallvec::SmallVec;

use super::active::Captures;
use super::calculation::{roll, TargetRead};
use super::cx::{Defs, EffectCx, FollowUp};
use super::def::EffectDef;
use super::error::EffectError;
use super::host::{Applied, EffectHost, EffectTimer};
use super::spec::EffectSpec;
use crate::time::SimDuration;
use crate::trace::{BlockReason, TraceKind};

impl EffectHost {
    /// Applies `spec`. Every check runs before any change, so a refused or
    /// failed application changes nothing.
    pub(crate) fn apply<P: From<EffectTimer>>(
        &mut self,
        cx: &mut EffectCx<P>,
        spec: EffectSpec,
        captures: Captures,
    ) -> Result<Applied, EffectError> {
        let defs = cx.defs;
        // `let else`, not `ok_or`: the error is built only when it happens.
        let Some(def) = defs.try_def(spec.effect) else {
            return Err(EffectError::UnknownEffect(spec.effect));
        };
        if let Some(reason) = self.refusal(defs, def, &spec.tags) {
            return Ok(self.blocked(cx, &spec, reason));
        }
        // Evaluate every magnitude first: a missing SetByCaller key fails
        // the whole application before anything is touched.
        let lookup = Defs::of(cx);
        let evaluated = if def.reads_target {
            self.evaluate_onto_stack(cx, def, &spec, &captures)?
        } else {
            self.evaluate_spec(lookup, def, &spec, &captures, TargetRead::PLAIN)?
        };
        if def.chance.is_some() {
            return self.apply_by_chance(cx, def, spec, captures, evaluated);
        }
        self.apply_checked(cx, def, spec, captures, evaluated)
    }

    /// [`evaluate_spec`](Self::evaluate_spec) of an effect that reads its
    /// target: a stack applied again reads it without its own modifiers.
    #[cold]
    #[inline(never)]
    fn evaluate_onto_stack<P>(
        &self,
        cx: &EffectCx<P>,
        def: &EffectDef,
        spec: &EffectSpec,
        captures: &Captures,
    ) -> Result<(SmallVec<[f64; 2]>, Option<SimDuration>), EffectError> {
        let read = TargetRead::onto(cx.schema, def, self.existing_stack(def, spec, cx.now));
        self.evaluate_spec(Defs::of(cx), def, spec, captures, read)
    }

    /// [`apply`](Self::apply) of an effect with a `chance`, after its
    /// checks: the roll, and on a hit the application. One that fails
    /// after the roll (a calculation gone wrong) puts the RNG back, so a
    /// failure changes nothing.
    #[inline(never)]
    fn apply_by_chance<P: From<EffectTimer>>(
        &mut self,
        cx: &mut EffectCx<P>,
        def: &EffectDef,
        spec: EffectSpec,
        captures: Captures,
        evaluated: (SmallVec<[f64; 2]>, Option<SimDuration>),
    ) -> Result<Applied, EffectError> {
        let unrolled = cx.rng.clone();
        if def.chance.is_some_and(|p| !roll(cx.rng, p)) {
            return Ok(self.blocked(cx, &spec, BlockReason::Chance));
        }
        let result = self.apply_checked(cx, def, spec, captures, evaluated);
        if result.is_err() {
            *cx.rng = unrolled;
        }
        result
    }

    /// The application proper, once every check has passed and every
    /// magnitude is evaluated. Conditional effects are queued first (judged
    /// on the target before it changes) and dropped again if the execution
    /// fails.
    #[inline(always)]
    fn apply_checked<P: From<EffectTimer>>(
        &mut self,
        cx: &mut EffectCx<P>,
        def: &EffectDef,
        spec: EffectSpec,
        mut captures: Captures,
        (magnitudes, duration): (SmallVec<[f64; 2]>, Option<SimDuration>),
    ) -> Result<Applied, EffectError> {
        let queued = cx.follow_ups.len();
        if !def.conditional.is_empty() {
            self.queue_conditional(cx, def, &spec);
        }
        if def.is_instant() {
            let effect = spec.effect;
            if let Err(error) = self.execute(cx, def, spec, &magnitudes, 1, &captures) {
                cx.follow_ups.truncate(queued);
                return Err(error);
            }
            self.remove_tagged_by(cx, effect, None);
            return Ok(Applied::Executed);
        }
        // What the calculations capture of the target once, for every
        // later execution.
        let stack = self.existing_stack(def, &spec, cx.now);
        if !def.executions.is_empty() || def.custom_modifiers {
            let read = TargetRead::onto(cx.schema, def, stack);
            self.capture_target(cx.calcs, def, read, &mut captures);
        }
        if let Some(key) = stack {
            let stacks = self.reapply(cx, key, &spec, (&magnitudes, captures), duration);
            self.remove_tagged_by(cx, spec.effect, Some(key));
            return Ok(Applied::Stacked { key, stacks });
        }
        let effect = spec.effect;
        let key = self.add_active(cx, def, spec, duration, magnitudes, captures);
        self.remove_tagged_by(cx, effect, Some(key));
        Ok(Applied::Added(key))
    }

    /// Queues `def`'s conditional effects whose query the owner matches.
    #[cold]
    fn queue_conditional<P>(&self, cx: &mut EffectCx<P>, def: &EffectDef, spec: &EffectSpec) {
        for (effect, when) in &def.conditional {
            if when.matches(self.tags.tags()) {
                let follow_on = spec.follow_on(*effect);
                cx.follow_ups
                    .push_back((cx.entity, FollowUp::Apply(follow_on)));
            }
        }
    }

    #[cold]
    fn blocked<P>(&self, cx: &mut EffectCx<P>, spec: &EffectSpec, reason: BlockReason) -> Applied {
        cx.trace.record(
            cx.now,
            TraceKind::EffectBlocked {
                target: cx.entity,
                effect: spec.effect,
                reason,
            },
        );
        Applied::Blocked(reason)
    }
}
