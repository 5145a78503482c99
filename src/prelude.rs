//! The names most game code needs, in one import: `use gaskit::prelude::*;`.
//!
//! Everything a custom behaviour, hook, observer or calculation touches is
//! here, so a game module's files start with this one line.

pub use crate::native;
pub use crate::{
    AbilityBehaviour, AbilityCx, AbilityId, AbilitySystem, Activation, ActivationFailure,
    ApplyOutcome, AttributeId, AttributeSchema, Attributes, Catalog, CatalogBuilder, ClientId,
    Diagnostic, EffectHook, EffectId, EffectKey, EffectSpec, EndReason, EntityNames, Execution,
    GameplayEvent, Gas, LoadErrors, ModOp, Name, NetOwner, Origin, SimDuration, SimTime, SourceId,
    Tag, TagCounts, TagQuery, TagQueryDef, TagRegistry, TagRegistryBuilder, TagSet, TraceCategory,
    TraceEvent, TraceFilter, TraceKind, TraceRecord, WakeReason,
};
