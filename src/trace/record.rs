//! [`TraceRecord`]: how a game module (or game code) puts its own events in
//! the trace, rendered by both renderers like the core's own.

use std::any::Any;
use std::fmt;

use hecs::Entity;

use super::event::TraceCategory;
use super::jsonl::JsonFields;
use super::text::EntityNames;
use crate::abilities::AbilityId;
use crate::attributes::AttributeId;
use crate::catalog::Catalog;
use crate::effects::EffectId;
use crate::tags::Tag;

/// An event of a game module or of game code, recorded into the same trace
/// as the core's events and shown by both renderers.
///
/// Record one with [`Gas::record_game`](crate::Gas::record_game): nothing is
/// built or stored when its category is filtered out. Read it back from an
/// event with [`TraceEvent::record`](crate::TraceEvent::record). The combat
/// layer's attacks, chases and deaths are records of this kind
/// (`gaskit::combat::CombatRecord`).
///
/// ```
/// use gaskit::trace::{JsonFields, RenderCx, TraceRecord};
/// use gaskit::TraceCategory;
///
/// /// A chest was opened.
/// #[derive(Debug, PartialEq)]
/// struct ChestOpened {
///     by: hecs::Entity,
///     gold: u32,
/// }
///
/// impl TraceRecord for ChestOpened {
///     fn kind(&self) -> &'static str {
///         "chest_opened"
///     }
///     fn category(&self) -> TraceCategory {
///         TraceCategory::game(5)
///     }
///     fn parties(&self) -> (hecs::Entity, Option<hecs::Entity>) {
///         (self.by, None)
///     }
///     fn describe(&self, _cx: &RenderCx<'_>) -> String {
///         format!("opens a chest: {} gold", self.gold)
///     }
///     fn json(&self, _cx: &RenderCx<'_>, fields: &mut JsonFields) {
///         fields.int("gold", u64::from(self.gold));
///     }
/// }
/// ```
pub trait TraceRecord: Any + fmt::Debug + Send + Sync + DynEq {
    /// The event's `kind` in the JSON form (`snake_case`, unique per record).
    fn kind(&self) -> &'static str;

    /// The category the trace filters it by.
    fn category(&self) -> TraceCategory;

    /// `(subject, other)`: the entity it is about (the text form's name
    /// column, `source` in JSON) and the other entity involved (`target`).
    fn parties(&self) -> (Entity, Option<Entity>);

    /// The text form: what happened, after the subject's name.
    fn describe(&self, cx: &RenderCx<'_>) -> String;

    /// The kind's own JSON fields (after `t`, `kind`, `source`, `target`).
    fn json(&self, cx: &RenderCx<'_>, fields: &mut JsonFields);
}

/// Equality between records of any type: records of different types differ.
/// Implemented for every `PartialEq` type.
pub trait DynEq {
    /// True when `other` is a record of the same type and value.
    fn dyn_eq(&self, other: &dyn Any) -> bool;
}

impl<T: PartialEq + Any> DynEq for T {
    fn dyn_eq(&self, other: &dyn Any) -> bool {
        other.downcast_ref::<T>() == Some(self)
    }
}

impl PartialEq for dyn TraceRecord {
    fn eq(&self, other: &dyn TraceRecord) -> bool {
        let other: &dyn Any = other;
        self.dyn_eq(other)
    }
}

/// What a renderer knows: entity names and the catalog, with helpers that
/// name tags and definitions (`"?"` for an id the catalog does not know, as
/// when a trace is read against other content).
pub struct RenderCx<'a> {
    names: &'a dyn EntityNames,
    catalog: &'a Catalog,
}

impl<'a> RenderCx<'a> {
    /// A context over `names` and `catalog`.
    pub fn new(names: &'a dyn EntityNames, catalog: &'a Catalog) -> Self {
        Self { names, catalog }
    }

    /// The catalog, for a module's own definitions.
    pub fn catalog(&self) -> &'a Catalog {
        self.catalog
    }

    /// The name an entity goes by.
    pub fn name(&self, entity: Entity) -> String {
        self.names.name_of(entity)
    }

    /// A tag's dotted name.
    pub fn tag(&self, tag: Tag) -> &'a str {
        let tags = self.catalog.tags();
        if tag.index() < tags.len() {
            tags.name(tag)
        } else {
            "?"
        }
    }

    /// A tag's developer comment (a failure's player message), else its name.
    pub fn tag_message(&self, tag: Tag) -> &'a str {
        let tags = self.catalog.tags();
        if tag.index() < tags.len() {
            tags.comment(tag).unwrap_or_else(|| tags.name(tag))
        } else {
            "?"
        }
    }

    /// An effect's name.
    pub fn effect(&self, id: EffectId) -> &'a str {
        self.catalog
            .effects()
            .try_def(id)
            .map_or("?", |d| d.name.as_str())
    }

    /// An ability's name.
    pub fn ability(&self, id: AbilityId) -> &'a str {
        self.catalog
            .abilities()
            .try_def(id)
            .map_or("?", |d| d.name.as_str())
    }

    /// An attribute's name.
    pub fn attribute(&self, id: AttributeId) -> &'a str {
        let schema = self.catalog.attributes();
        if id.index() < schema.len() {
            schema.name(id)
        } else {
            "?"
        }
    }
}
