//! The names most game code needs, in one import: `use gaskit::prelude::*;`.

pub use crate::native;
pub use crate::{
    AbilitySystem, ApplyOutcome, AttributeId, AttributeSchema, Attributes, Catalog, CatalogBuilder,
    Diagnostic, EffectSpec, GameplayEvent, Gas, LoadErrors, ModOp, Name, SimDuration, SimTime,
    SourceId, Tag, TagCounts, TagQuery, TagQueryDef, TagRegistry, TagRegistryBuilder, TagSet,
};
