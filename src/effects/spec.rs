//! [`EffectSpec`]: an effect ready to apply, with its level, source and
//! SetByCaller magnitudes.

use std::fmt;

use hecs::Entity;
use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

use super::def::EffectId;
use crate::tags::{Tag, TagRegistry, TagSet};

/// An effect definition plus everything decided at the moment of use (the
/// role of `FGameplayEffectSpec`).
///
/// SetByCaller values live inline: a spec with up to two keys never
/// allocates.
///
/// ```
/// use gaskit::{CatalogBuilder, EffectSpec};
///
/// let mut builder = CatalogBuilder::new();
/// builder.tags().add_source("game.tags", "Cooldown.Blink\n");
/// builder.add_source("game.ron", r#"(effects: [(
///     name: "GE_Blink_Cooldown",
///     duration: Duration(SetByCaller("Cooldown.Blink")),
///     granted_tags: ["Cooldown.Blink"],
/// )])"#);
/// let catalog = builder.build().unwrap();
/// let cooldown = catalog.effects().get("GE_Blink_Cooldown").unwrap();
/// let blink = catalog.tags().get("Cooldown.Blink").unwrap();
/// let spec = EffectSpec::new(cooldown).with_set_by_caller(blink, 2.4);
/// assert_eq!(spec.set_by_caller(blink), Ok(2.4));
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EffectSpec {
    /// The definition.
    pub effect: EffectId,
    /// Level, for `Scaled` magnitudes (1-based; 0 reads as 1).
    pub level: u32,
    /// Who applies it (the instigator), if anyone.
    pub source: Option<Entity>,
    /// Tags the caller attaches to this application (matched by immunity,
    /// reported to hooks): a damage type, "weaved", ...
    pub tags: TagSet,
    set_by_caller: SetByCallers,
}

/// A spec's SetByCaller values, key and value: two inline.
pub(crate) type SetByCallers = SmallVec<[(Tag, f64); 2]>;

/// Why a SetByCaller magnitude could not be read.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SetByCallerError {
    /// The spec carries no value under the key (or a descendant of it).
    Missing(Tag),
    /// The spec carries values under two different descendants of the key.
    Ambiguous(Tag),
}

impl EffectSpec {
    /// Whether it carries more than the `reads` SetByCaller values its
    /// definition reads, or any tag: only then can it hold something no
    /// evaluation checks (see [`non_finite_value`](Self::non_finite_value)).
    #[inline]
    pub(crate) fn carries_more_than(&self, reads: usize) -> bool {
        self.set_by_caller.len() > reads || !self.tags.is_empty()
    }

    /// A SetByCaller value it carries that is not finite, read or not: an
    /// active effect keeps its spec whole, and a save holding one could
    /// never be restored.
    pub(crate) fn non_finite_value(&self) -> Option<f64> {
        self.set_by_caller
            .iter()
            .map(|&(_, value)| value)
            .find(|value| !value.is_finite())
    }

    /// Whether every SetByCaller key and tag it carries is `tags`' own
    /// (for the same reason).
    pub(crate) fn tags_known(&self, tags: &TagRegistry) -> bool {
        self.set_by_caller.iter().all(|&(key, _)| tags.knows(key)) && self.tags.is_valid_in(tags)
    }

    /// What an active effect may keep and a save may hold: every value
    /// finite, every key and tag `tags`' own. The one rule an application
    /// and a restore both ask.
    pub(crate) fn is_well_formed(&self, tags: &TagRegistry) -> bool {
        self.non_finite_value().is_none() && self.tags_known(tags)
    }

    /// A level-1 spec with no source and no SetByCaller values.
    pub fn new(effect: EffectId) -> Self {
        Self {
            effect,
            level: 1,
            source: None,
            tags: TagSet::new(),
            set_by_caller: SmallVec::new(),
        }
    }

    /// A level-1 spec with a source, tags and one SetByCaller value, built
    /// in one piece: for a rule that applies one on every event (a swing's
    /// cooldown, its damage), passed straight to the application it is
    /// built where the application takes it. Built field by field or by a
    /// builder chain, a spec (some 100 bytes) is moved whole at each step
    /// and then copied while those writes are still in flight, which the
    /// combat layer measured at 2 % of an attack's time.
    ///
    /// ```
    /// # use gaskit::{CatalogBuilder, EffectSpec, TagSet};
    /// # let mut builder = CatalogBuilder::new();
    /// # builder.tags().add_source("t.tags", "Cooldown.Blink\n");
    /// # builder.add_source("e.ron", r#"(effects: [(name: "GE_Blink_Cooldown",
    /// #     duration: Duration(SetByCaller("Cooldown.Blink")), granted_tags: ["Cooldown.Blink"])])"#);
    /// # let catalog = builder.build().unwrap();
    /// let cooldown = catalog.effects().get("GE_Blink_Cooldown").unwrap();
    /// let blink = catalog.tags().get("Cooldown.Blink").unwrap();
    /// let spec = EffectSpec::with_value(cooldown, None, TagSet::new(), (blink, 2.4));
    /// assert_eq!(spec, EffectSpec::new(cooldown).with_set_by_caller(blink, 2.4));
    /// ```
    pub fn with_value(
        effect: EffectId,
        source: Option<Entity>,
        tags: TagSet,
        (key, value): (Tag, f64),
    ) -> Self {
        // The second entry is room, not a value: the length is one.
        let values = SmallVec::from_buf_and_len([(key, value), (key, 0.0)], 1);
        Self::from_parts(effect, 1, source, tags, values)
    }

    /// A spec for `effect` that another effect's application or ending
    /// causes: same source, level and SetByCaller values, none of its tags.
    pub(crate) fn follow_on(&self, effect: EffectId) -> Self {
        Self {
            effect,
            level: self.level,
            source: self.source,
            tags: TagSet::new(),
            set_by_caller: self.set_by_caller.clone(),
        }
    }

    /// The spec taken apart: definition, level, source, tags, SetByCaller
    /// values (how an active effect keeps it).
    pub(crate) fn into_parts(self) -> (EffectId, u32, Option<Entity>, TagSet, SetByCallers) {
        (
            self.effect,
            self.level,
            self.source,
            self.tags,
            self.set_by_caller,
        )
    }

    /// A spec put back together from [`into_parts`](Self::into_parts).
    pub(crate) fn from_parts(
        effect: EffectId,
        level: u32,
        source: Option<Entity>,
        tags: TagSet,
        set_by_caller: SetByCallers,
    ) -> Self {
        Self {
            effect,
            level,
            source,
            tags,
            set_by_caller,
        }
    }

    /// Sets the level.
    #[inline]
    pub fn with_level(mut self, level: u32) -> Self {
        self.level = level;
        self
    }

    /// Sets the source entity.
    #[inline]
    pub fn with_source(mut self, source: Entity) -> Self {
        self.source = Some(source);
        self
    }

    /// Attaches a tag to this application.
    #[inline]
    pub fn with_tag(mut self, tag: Tag) -> Self {
        self.tags.insert(tag);
        self
    }

    /// Sets a SetByCaller value, replacing an earlier one under the same key.
    // Inlined, as the other builders above: a builder moves the whole spec
    // in and out, which a caller that builds in place does not pay.
    #[inline]
    pub fn with_set_by_caller(mut self, key: Tag, value: f64) -> Self {
        self.set(key, value);
        self
    }

    /// Sets a SetByCaller value in place.
    pub fn set(&mut self, key: Tag, value: f64) {
        match self.set_by_caller.iter_mut().find(|(k, _)| *k == key) {
            Some(entry) => entry.1 = value,
            None => self.set_by_caller.push((key, value)),
        }
    }

    /// The value under `key`: an entry keyed by `key` itself or by exactly
    /// one descendant of it (a damage effect asking for
    /// `Combat.DamageType` reads the one `Combat.DamageType.*` entry).
    pub fn set_by_caller(&self, key: Tag) -> Result<f64, SetByCallerError> {
        let mut found = None;
        for &(k, value) in &self.set_by_caller {
            if k.matches(key) {
                if found.is_some() {
                    return Err(SetByCallerError::Ambiguous(key));
                }
                found = Some(value);
            }
        }
        found.ok_or(SetByCallerError::Missing(key))
    }

    /// The key actually stored under `key` (the leaf a parent key resolved to).
    pub fn set_by_caller_key(&self, key: Tag) -> Option<Tag> {
        self.set_by_caller
            .iter()
            .map(|(k, _)| *k)
            .find(|k| k.matches(key))
    }

    /// Every SetByCaller entry.
    pub fn set_by_caller_entries(&self) -> &[(Tag, f64)] {
        &self.set_by_caller
    }
}

/// A spec knows no tag names: the context reports these as
/// [`EffectError`](crate::EffectError)s, which name the effect and the key.
impl fmt::Display for SetByCallerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SetByCallerError::Missing(_) => "the spec has no SetByCaller value under the key",
            SetByCallerError::Ambiguous(_) => {
                "the spec has several SetByCaller values under the key"
            }
        })
    }
}
