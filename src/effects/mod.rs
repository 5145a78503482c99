//! Gameplay effects: every change of state goes through one.
//!
//! An effect definition (data) says how long it lasts, what it modifies,
//! which tags it grants and how re-applications stack. An [`EffectSpec`]
//! adds what is decided at the moment of use: level, source and SetByCaller
//! magnitudes. Applying a spec to a target either executes it (instant
//! effects change *base* values) or makes it active: a duration or infinite
//! effect adds its modifiers to the aggregator and grants its tags until it
//! ends, while a *periodic* one holds no modifier at all and executes its
//! modifiers into the base every period instead, as in Unreal's GAS, so its
//! expiry changes no value.
//!
//! A meta attribute (like `Damage`) modified by an execution is consumed in
//! one post-execute step: its value is subtracted from the attribute it
//! drains into (`Health`), bounds clamp the result, the meta attribute
//! returns to zero, and the outcome (hit, heal, reached zero) is reported
//! to the context's hooks. Healing is negative damage through the same path.

mod active;
mod apply;
mod aside;
mod calculation;
mod compile;
mod cx;
mod data;
mod def;
mod error;
mod evaluate;
mod execution;
mod expiry;
mod host;
mod lazy;
mod listening;
mod notices;
mod ongoing;
mod reads;
mod refusal;
mod removal;
mod saved_host;
mod spec;
mod stacking;
mod timed;

pub use active::{EffectKey, MAX_EFFECT_LEVEL, MAX_STACKS};
pub use calculation::{
    CalculationId, CalculationSetup, Calculations, Capture, CaptureDef, ExecutionCalculation,
    ExecutionCx, MagnitudeCalculation, MagnitudeCx,
};
pub use data::{
    AttributeMagnitudeData, CaptureFrom, CueData, CueEvent, DurationData, DurationOnReapply,
    EffectData, LifeData, MagnitudeData, ModifierData, PeriodData, PeriodOnReapply,
    PeriodicWhileDead, StackBy, StackExpiry, StackingData,
};
pub use def::{
    AttributeCapture, Cue, DurationPolicy, EffectDef, EffectDefs, EffectId, Life, Magnitude,
    ModifierDef, Period, Stacking,
};
pub use error::EffectError;
pub use execution::{Execution, MetaOutcome};
pub use host::{ApplyOutcome, EffectHost, EffectTimer};
pub use spec::{EffectSpec, SetByCallerError};

pub(crate) use active::{ActiveEffect, Captures};
pub(crate) use calculation::{PendingCalculations, TargetRead};
pub(crate) use cx::{Defs, EffectCx, FollowUp, TagLog};
pub(crate) use execution::{Calculated, Executing};
pub(crate) use host::Applied;
pub(crate) use notices::LazyEnds;
