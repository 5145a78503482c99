//! A spec's magnitudes and duration evaluated against an [`EffectHost`],
//! changing nothing: what an application would compute, or its error.

use smallvec::SmallVec;

use super::active::Captures;
use super::calculation::{CalculationId, MagnitudeCx, TargetRead};
use super::cx::Defs;
use super::data::CaptureFrom;
use super::def::{DurationPolicy, EffectDef, Magnitude};
use super::error::EffectError;
use super::host::EffectHost;
use super::spec::{EffectSpec, SetByCallerError};
use crate::time::SimDuration;

impl EffectHost {
    /// Every magnitude of `spec` for one stack, and its duration (`None`
    /// when infinite or instant), without changing anything: what an
    /// application would compute, or the error it would fail with. The
    /// target is read through `read` (a stack applied again reads it
    /// without its own modifiers; every other evaluation,
    /// [`TargetRead::PLAIN`]).
    #[inline]
    pub(crate) fn evaluate_spec(
        &self,
        names: Defs<'_>,
        def: &EffectDef,
        spec: &EffectSpec,
        captures: &Captures,
        read: TargetRead<'_>,
    ) -> Result<(SmallVec<[f64; 2]>, Option<SimDuration>), EffectError> {
        // A loop rather than `collect::<Result<_, _>>()`: built without
        // cross-crate LTO (a game's default release profile) that collect
        // stays out of line and cost 2.4 % of an attack.
        let mut magnitudes = SmallVec::new();
        for modifier in &def.modifiers {
            let value = self.evaluate(names, &modifier.magnitude, spec, captures, read)?;
            if modifier.divides_span {
                let limit = def.stacking.map_or(1, |s| s.limit);
                if modifier.op.stacked(value, limit) <= 0.0 {
                    return Err(EffectError::SpanMultiplier {
                        effect: names.effect(spec.effect),
                        value,
                    });
                }
            }
            magnitudes.push(value);
        }
        Ok((
            magnitudes,
            self.evaluate_duration(names, def, spec, captures, read)?,
        ))
    }

    /// The window of [`evaluate_spec`](Self::evaluate_spec) alone: all an
    /// effect without modifiers (one that ends lazily) evaluates.
    // Always inlined: every swing evaluates a cooldown's window and every
    // hit two combat marks', and out of line the call's set-up cost a
    // fifth of the evaluation.
    #[inline(always)]
    pub(crate) fn evaluate_duration(
        &self,
        names: Defs<'_>,
        def: &EffectDef,
        spec: &EffectSpec,
        captures: &Captures,
        read: TargetRead<'_>,
    ) -> Result<Option<SimDuration>, EffectError> {
        let DurationPolicy::Duration(m) = &def.duration else {
            return Ok(None);
        };
        let secs = self.evaluate(names, m, spec, captures, read)?;
        SimDuration::from_secs_f64(secs)
            .map(Some)
            .map_err(|_| EffectError::BadDuration {
                effect: names.effect(spec.effect),
                seconds: secs,
            })
    }

    /// One magnitude for one stack.
    // Inlined for the magnitudes nearly every application has (a constant,
    // a SetByCaller value found and finite: every cooldown's and combat
    // mark's duration); the rest, and every error, out of line.
    #[inline]
    fn evaluate(
        &self,
        names: Defs<'_>,
        magnitude: &Magnitude,
        spec: &EffectSpec,
        captures: &Captures,
        read: TargetRead<'_>,
    ) -> Result<f64, EffectError> {
        let plain = match magnitude {
            Magnitude::Constant(value) => Some(*value),
            Magnitude::SetByCaller(key) => spec.set_by_caller(*key).ok(),
            _ => None,
        };
        match plain {
            Some(value) if value.is_finite() => Ok(value),
            _ => self.evaluate_fully(names, magnitude, spec, captures, read),
        }
    }

    /// A custom magnitude for one stack, reading the target through
    /// `read`. At application (`target_now`) it reads every target
    /// attribute as it is; evaluated again later, it reads those it
    /// captures once from `captures`, kept at application.
    pub(crate) fn custom_magnitude(
        &self,
        names: Defs<'_>,
        id: CalculationId,
        spec: &EffectSpec,
        captures: &Captures,
        target_now: bool,
        read: TargetRead<'_>,
    ) -> Result<f64, EffectError> {
        let registered = names.calcs.magnitude_def(id);
        let target = (&self.attributes, read);
        let cx = MagnitudeCx::new(spec, &registered.captures, captures, target, target_now);
        let value = registered.calculation.magnitude(&cx);
        if value.is_finite() {
            Ok(value)
        } else {
            Err(EffectError::CalculationFailed {
                effect: names.effect(spec.effect),
                calculation: names.calcs.magnitude_name(id).to_owned(),
                value,
            })
        }
    }

    /// [`evaluate`](Self::evaluate) for every kind of magnitude, with its
    /// errors.
    #[inline(never)]
    fn evaluate_fully(
        &self,
        names: Defs<'_>,
        magnitude: &Magnitude,
        spec: &EffectSpec,
        captures: &Captures,
        read: TargetRead<'_>,
    ) -> Result<f64, EffectError> {
        let value = match magnitude {
            Magnitude::Constant(value) => *value,
            Magnitude::Scaled(table) => Magnitude::scaled_at(table, spec.level),
            Magnitude::SetByCaller(key) => {
                spec.set_by_caller(*key).map_err(|error| match error {
                    SetByCallerError::Missing(key) => EffectError::MissingSetByCaller {
                        effect: names.effect(spec.effect),
                        key: names.tag(key),
                    },
                    SetByCallerError::Ambiguous(key) => EffectError::AmbiguousSetByCaller {
                        effect: names.effect(spec.effect),
                        key: names.tag(key),
                    },
                })?
            }
            Magnitude::Attribute(capture) => {
                let value = match capture.from {
                    CaptureFrom::Target => read.current(&self.attributes, capture.attribute),
                    CaptureFrom::Source => captures
                        .iter()
                        .find(|(from, a, _)| {
                            *from == CaptureFrom::Source && *a == capture.attribute
                        })
                        .map(|(_, _, v)| *v)
                        .ok_or_else(|| EffectError::SourceUnavailable {
                            effect: names.effect(spec.effect),
                        })?,
                };
                capture.apply(value)
            }
            Magnitude::Custom(id) => {
                self.custom_magnitude(names, *id, spec, captures, true, read)?
            }
        };
        if value.is_finite() {
            Ok(value)
        } else {
            Err(EffectError::NotFinite {
                effect: names.effect(spec.effect),
                value,
            })
        }
    }
}
