//! The names most game code needs, in one import: `use gaskit::prelude::*;`.
//!
//! Everything a custom behaviour, hook, observer or calculation touches is
//! here, so a game module's files start with this one line.

pub use crate::native;
pub use crate::{
    AbilityBehaviour, AbilityCx, AbilityId, AbilitySystem, Activation, ActivationFailure,
    ApplyOutcome, AttributeId, AttributeSchema, Attributes, BlockReason, CalculationSetup, Capture,
    CaptureFrom, Catalog, CatalogBuilder, ClientId, CueEvent, Diagnostic, EffectError, EffectHook,
    EffectId, EffectKey, EffectSpec, EndReason, EntityNames, EventOutcome, Execution,
    ExecutionCalculation, ExecutionCx, GameRecord, GameplayEvent, Gas, InstanceKey, InstanceState,
    LoadErrors, MagnitudeCalculation, MagnitudeCx, ModOp, Name, NetOwner, Observation, Observe,
    Origin, RemovalReason, SimDuration, SimTime, SourceId, Tag, TagCounts, TagQuery, TagQueryDef,
    TagRegistry, TagRegistryBuilder, TagSet, Threshold, TraceCategory, TraceEvent, TraceFilter,
    TraceKind, TraceRecord, Wait, WakeReason,
};
