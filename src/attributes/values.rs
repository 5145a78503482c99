//! [`Attributes`]: one entity's base values, current values and modifiers.

use std::fmt;

use serde::ser::SerializeStruct;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use smallvec::SmallVec;

use super::breakdown::Breakdown;
use super::derived::ProfileId;
use super::formula;
use super::modifiers::{accumulate, ModOp, Modifiers, SourceId};
use super::schema::{AttributeId, AttributeSchema};
use crate::names::Named;

/// Inline room for an entity's values: base and current of up to four
/// attributes (a combatant's). A larger schema keeps them in one heap block
/// sized to it.
const INLINE_VALUES: usize = 8;

/// One attribute whose current value changed.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct AttributeChange {
    /// Which attribute.
    pub attribute: AttributeId,
    /// Current value before.
    pub old: f64,
    /// Current value after.
    pub new: f64,
}

/// The attributes whose current value a call changed, dependencies first.
pub type AttributeChanges = SmallVec<[AttributeChange; 4]>;

/// A rejected attribute write. Nothing was changed.
#[derive(Clone, Debug, PartialEq)]
pub enum AttributeError {
    /// NaN or infinity offered as a base value or modifier magnitude.
    NotFinite {
        /// The attribute written to.
        attribute: Named<AttributeId>,
        /// The value offered.
        value: f64,
    },
    /// The attribute's base belongs to a derived rule of the entity's
    /// profile: the rule would overwrite whatever is written.
    OwnedByRule {
        /// The attribute written to.
        attribute: Named<AttributeId>,
        /// The derived profile whose rule owns it.
        profile: String,
    },
    /// The attribute id is not in this schema (so it has no name).
    UnknownAttribute(AttributeId),
    /// The derived profile id is not in this schema (an id from another
    /// catalog, or a saved one).
    UnknownProfile(ProfileId),
    /// The entity is gone or has no ability system.
    NoSuchEntity(hecs::Entity),
}

impl fmt::Display for AttributeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AttributeError::NotFinite { attribute, value } => {
                write!(f, "attribute {attribute} rejects non-finite value {value}")
            }
            AttributeError::OwnedByRule { attribute, profile } => write!(
                f,
                "the base of attribute {attribute} belongs to the rule for it in derived \
                 profile `{profile}`; change the rule's sources (or modify it with an effect) instead"
            ),
            AttributeError::UnknownAttribute(id) => {
                write!(f, "attribute #{} is not in this schema", id.index())
            }
            AttributeError::UnknownProfile(id) => {
                write!(f, "derived profile #{} is not in this schema", id.index())
            }
            AttributeError::NoSuchEntity(entity) => {
                write!(f, "entity {entity:?} is gone or has no ability system")
            }
        }
    }
}

impl std::error::Error for AttributeError {}

/// One entity's attribute values (the data half of an `AttributeSet`).
///
/// Every attribute has a *base* value (permanent changes: instant effects,
/// level-ups) and a *current* value: the base run through the active
/// modifiers and the attribute's bounds. Current values are recomputed from
/// base and modifiers whenever a source changes, never by adding and
/// subtracting deltas, and modifiers are combined in a canonical order, so
/// a value depends only on *which* modifiers are active: never on the order
/// they arrived in or on what was applied and removed before.
///
/// A change to one attribute also recomputes the attributes that depend on
/// it through a bound (`Health ≤ MaxHealth`) or a derived rule, in a fixed
/// order computed at load.
///
/// Ids must come from the schema this value set was created with.
#[derive(Clone, Debug, PartialEq)]
pub struct Attributes {
    profile: ProfileId,
    /// Every base value, then every current value, each indexed by
    /// attribute: one array sized to the schema.
    values: SmallVec<[f64; INLINE_VALUES]>,
    modifiers: Modifiers,
}

impl Attributes {
    /// What values read from outside (a snapshot) must satisfy to be used
    /// with `schema`: one value per attribute, a known profile, modifiers
    /// on known attributes, every number finite.
    pub(crate) fn check(&self, schema: &AttributeSchema) -> Result<(), String> {
        let count = schema.len();
        if self.count() != count {
            return Err(format!(
                "{} attribute values where the catalog has {count}",
                self.count()
            ));
        }
        if self.profile.index() >= schema.profile_count() {
            return Err(format!(
                "derived profile #{} is not in this catalog",
                self.profile.index()
            ));
        }
        if !self.modifiers.is_valid(count) {
            return Err(
                "a modifier names an unknown attribute, is not finite, or is out of its order"
                    .into(),
            );
        }
        if self.values.iter().any(|v| !v.is_finite()) {
            return Err("an attribute value is not finite".into());
        }
        Ok(())
    }

    /// Default base values, no modifiers, no derived profile.
    pub fn new(schema: &AttributeSchema) -> Self {
        Self::with_profile(schema, ProfileId::NONE).expect("every schema has the rule-less profile")
    }

    /// Default base values and the derived rules of `profile`, evaluated;
    /// then attributes with a `starts_at` take that attribute's value.
    /// Refused for a profile not in `schema`.
    pub fn with_profile(
        schema: &AttributeSchema,
        profile: ProfileId,
    ) -> Result<Self, AttributeError> {
        Self::with_bases(schema, profile, &[])
    }

    /// Like [`with_profile`](Self::with_profile), with some base values
    /// set first (a level-12 hero's `Intellect`), so derived rules and
    /// starting values see them. Refused for a profile not in `schema`, a
    /// non-finite value, an unknown id, or an attribute a rule of `profile`
    /// owns.
    pub fn with_bases(
        schema: &AttributeSchema,
        profile: ProfileId,
        bases: &[(AttributeId, f64)],
    ) -> Result<Self, AttributeError> {
        if profile.index() >= schema.profile_count() {
            return Err(AttributeError::UnknownProfile(profile));
        }
        let mut base: SmallVec<[f64; INLINE_VALUES]> =
            schema.ids().map(|id| schema.def(id).base).collect();
        for &(id, value) in bases {
            check_finite(schema, id, value)?;
            if schema.derived(profile).owns(id) {
                return Err(AttributeError::OwnedByRule {
                    attribute: Named::new(id, schema.name(id)),
                    profile: schema.profile_name(profile).to_owned(),
                });
            }
            base[id.index()] = value;
        }
        // Current values start at the base ones.
        let mut values = base.clone();
        values.extend_from_slice(&base);
        let mut attributes = Attributes {
            profile,
            values,
            modifiers: Modifiers::default(),
        };
        let mut changes = AttributeChanges::new();
        for &id in schema.derived(profile).order() {
            attributes.recompute_one(schema, id, &mut changes);
        }
        // Starting values read what the rules computed (Health at
        // MaxHealth), each after the one it starts at; a base given here
        // is the caller's, and stays. One whose source is bounded by, or
        // derived from, another starting value (a shield starting at a
        // capacity capped by Health) may have read it before it started:
        // it is read again, pass after pass, until none moves. A pass per
        // start is as many as a chain can need.
        let starts = schema.starts();
        let mut copied: SmallVec<[f64; 4]> = SmallVec::from_elem(f64::NAN, starts.len());
        for _ in 0..starts.len() {
            let mut moved = false;
            for (&id, copied) in starts.iter().zip(copied.iter_mut()) {
                let from = schema
                    .def(id)
                    .starts_at
                    .expect("only attributes with a start");
                let value = attributes.current(from);
                // NaN first: every start is copied at least once.
                if value.to_bits() == copied.to_bits()
                    || bases.iter().any(|&(given, _)| given == id)
                {
                    continue;
                }
                *copied = value;
                *attributes.base_mut(id.index()) = value;
                attributes.refresh_into(schema, id, &mut changes);
                moved = true;
            }
            if !moved {
                break;
            }
        }
        Ok(attributes)
    }

    /// The derived profile in use.
    pub fn profile(&self) -> ProfileId {
        self.profile
    }

    /// The effective value of `id`.
    #[inline]
    pub fn current(&self, id: AttributeId) -> f64 {
        self.currents()[id.index()]
    }

    /// The base value of `id`.
    #[inline]
    pub fn base(&self, id: AttributeId) -> f64 {
        self.bases()[id.index()]
    }

    /// Whether `id` names one of these attributes (not an id from a larger
    /// catalog's schema).
    #[inline]
    pub(crate) fn holds(&self, id: AttributeId) -> bool {
        id.index() < self.count()
    }

    /// Number of attributes.
    #[inline]
    fn count(&self) -> usize {
        self.values.len() / 2
    }

    /// Every base value, indexed by attribute.
    #[inline]
    fn bases(&self) -> &[f64] {
        &self.values[..self.count()]
    }

    /// Every current value, indexed by attribute.
    #[inline]
    fn currents(&self) -> &[f64] {
        &self.values[self.count()..]
    }

    #[inline]
    fn base_mut(&mut self, index: usize) -> &mut f64 {
        &mut self.values[index]
    }

    #[inline]
    fn current_mut(&mut self, index: usize) -> &mut f64 {
        let count = self.count();
        &mut self.values[count + index]
    }

    /// `id`'s bounds as they stand (a missing one infinite): the constants,
    /// or the current values of the attributes that bound it. The bounds
    /// every recompute clamps to.
    pub(crate) fn bounds(&self, schema: &AttributeSchema, id: AttributeId) -> (f64, f64) {
        formula::bounds(schema.def(id), self.currents())
    }

    /// A copy of every current value, indexed by attribute.
    pub(crate) fn current_values(&self) -> Vec<f64> {
        self.currents().to_vec()
    }

    /// Number of active modifiers over all attributes.
    pub fn modifier_count(&self) -> usize {
        self.modifiers.len()
    }

    /// Sets the base value of `id` and recomputes what depends on it.
    /// Refused (nothing changes) for a non-finite value, and for the target
    /// of a derived rule of this entity's profile: the rule owns that base.
    pub fn set_base(
        &mut self,
        schema: &AttributeSchema,
        id: AttributeId,
        value: f64,
    ) -> Result<AttributeChanges, AttributeError> {
        check_finite(schema, id, value)?;
        if schema.derived(self.profile).owns(id) {
            return Err(AttributeError::OwnedByRule {
                attribute: Named::new(id, schema.name(id)),
                profile: schema.profile_name(self.profile).to_owned(),
            });
        }
        *self.base_mut(id.index()) = value;
        Ok(self.refresh(schema, id))
    }

    /// True when `id` is a meta attribute at rest whose base nothing
    /// follows: its base is `+0.0` and no clamping of the base, derived
    /// rule or dependent attribute reads it. An execution may then use the
    /// base as scratch ([`write_scratch_base`](Self::write_scratch_base))
    /// and put it back to zero: its current value, that of a zero base,
    /// is right all along, so no one can tell it from
    /// [`set_base`](Self::set_base) twice.
    pub(crate) fn meta_base_is_scratch(&self, schema: &AttributeSchema, id: AttributeId) -> bool {
        let def = schema.def(id);
        let profile = schema.derived(self.profile);
        def.meta
            && !def.clamp_base
            && self.base(id).to_bits() == 0
            && !profile.owns(id)
            && profile.dependents(id).is_empty()
    }

    /// Writes `id`'s base alone, nothing recomputed: only for a base that
    /// [`meta_base_is_scratch`](Self::meta_base_is_scratch) found at rest,
    /// and only until it is written back to zero.
    pub(crate) fn write_scratch_base(&mut self, id: AttributeId, value: f64) {
        *self.base_mut(id.index()) = value;
    }

    /// Adds a modifier from `source` and recomputes what depends on `id`.
    pub fn add_modifier(
        &mut self,
        schema: &AttributeSchema,
        id: AttributeId,
        op: ModOp,
        value: f64,
        source: SourceId,
    ) -> Result<AttributeChanges, AttributeError> {
        check_finite(schema, id, value)?;
        self.modifiers.insert(id, op, value, source);
        Ok(self.refresh(schema, id))
    }

    /// Replaces `source`'s modifiers with `new` (values checked finite
    /// first, nothing changed otherwise) and recomputes what depends on
    /// them once, from the final set: nothing sees the modifiers gone in
    /// between (a `clamp_base` attribute bounded by one would be clamped to
    /// that low point for good). The modifiers keep their application
    /// order.
    pub fn replace_modifiers(
        &mut self,
        schema: &AttributeSchema,
        source: SourceId,
        new: &[(AttributeId, ModOp, f64)],
    ) -> Result<AttributeChanges, AttributeError> {
        for &(id, _, value) in new {
            check_finite(schema, id, value)?;
        }
        let mut touched: SmallVec<[AttributeId; 4]> = SmallVec::new();
        self.modifiers.replace_source(source, new, |id| {
            if !touched.contains(&id) {
                touched.push(id);
            }
        });
        touched.sort_unstable();
        let mut changes = AttributeChanges::new();
        for id in touched {
            self.refresh_into(schema, id, &mut changes);
        }
        Ok(changes)
    }

    /// Removes every modifier from `source` and recomputes what depended on them.
    pub fn remove_modifiers(
        &mut self,
        schema: &AttributeSchema,
        source: SourceId,
    ) -> AttributeChanges {
        let mut touched: SmallVec<[AttributeId; 4]> = SmallVec::new();
        self.modifiers.remove_source(source, |id| touched.push(id));
        let mut changes = AttributeChanges::new();
        for id in touched {
            self.refresh_into(schema, id, &mut changes);
        }
        changes
    }

    /// Recomputes `id` and every attribute depending on it, returning the
    /// current values that changed. Only needed after changing something
    /// the attribute reads from outside this value set.
    pub fn refresh(&mut self, schema: &AttributeSchema, id: AttributeId) -> AttributeChanges {
        let mut changes = AttributeChanges::new();
        self.refresh_into(schema, id, &mut changes);
        changes
    }

    fn refresh_into(
        &mut self,
        schema: &AttributeSchema,
        id: AttributeId,
        changes: &mut AttributeChanges,
    ) {
        self.recompute_one(schema, id, changes);
        let profile = schema.derived(self.profile);
        for &dependent in profile.dependents(id) {
            self.recompute_one(schema, dependent, changes);
        }
    }

    /// Runs `id`'s derived rule (if any) into its base, then the formula and
    /// bounds into its current value. A non-finite rule result or formula
    /// result leaves the previous value in place.
    #[inline]
    fn recompute_one(
        &mut self,
        schema: &AttributeSchema,
        id: AttributeId,
        changes: &mut AttributeChanges,
    ) {
        let index = id.index();
        if let Some(value) = schema
            .derived(self.profile)
            .evaluate_rule(id, self.currents())
        {
            if value.is_finite() {
                *self.base_mut(index) = value;
            }
        }
        let def = schema.def(id);
        let range = formula::bounds(def, self.currents());
        if def.clamp_base {
            *self.base_mut(index) = formula::clamp(self.bases()[index], range);
        }
        let acc = accumulate(self.modifiers.of(id));
        let value = formula::clamp(formula::unbounded(def, self.bases()[index], &acc), range);
        let old = self.currents()[index];
        if value.is_finite() && value.to_bits() != old.to_bits() {
            *self.current_mut(index) = value;
            changes.push(AttributeChange {
                attribute: id,
                old,
                new: value,
            });
        }
    }

    /// `id`'s value with `source`'s modifiers on it left out, every other
    /// input (the base, the bounds) as it stands: what a stack being
    /// applied again reads of an attribute it moves itself, which would
    /// otherwise feed on its own bonus. Only `id`'s own modifiers: an
    /// attribute derived from, or bounded by, one the stack moves still
    /// reads it with the bonus in (no rule is run again). Changes nothing.
    pub(crate) fn current_without(
        &self,
        schema: &AttributeSchema,
        id: AttributeId,
        source: SourceId,
    ) -> f64 {
        let modifiers = self.modifiers.of(id);
        if !modifiers.iter().any(|m| m.source == source) {
            return self.current(id);
        }
        let others = accumulate(modifiers.iter().filter(|m| m.source != source));
        let def = schema.def(id);
        let range = formula::bounds(def, self.currents());
        formula::clamp(formula::unbounded(def, self.base(id), &others), range)
    }

    /// Where `id`'s value comes from: base, every source's contribution per
    /// accumulator, the unclamped points and what the cap ate, the bounds and
    /// the result. For UI and debugging; it allocates and stores nothing.
    pub fn breakdown(&self, schema: &AttributeSchema, id: AttributeId) -> Breakdown {
        Breakdown::new(
            schema,
            id,
            self.base(id),
            self.modifiers.of(id),
            self.currents(),
        )
    }
}

/// Saved as before base and current values shared one array: `profile`,
/// `base`, `current`, `modifiers` (same shape, same checksums).
impl Serialize for Attributes {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut saved = serializer.serialize_struct("Attributes", 4)?;
        saved.serialize_field("profile", &self.profile)?;
        saved.serialize_field("base", self.bases())?;
        saved.serialize_field("current", self.currents())?;
        saved.serialize_field("modifiers", &self.modifiers)?;
        saved.end()
    }
}

/// Base and current values of different lengths are refused when read
/// (the number against the schema is checked with the rest of a snapshot).
impl<'de> Deserialize<'de> for Attributes {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(rename = "Attributes")]
        struct Saved {
            profile: ProfileId,
            base: SmallVec<[f64; INLINE_VALUES]>,
            current: SmallVec<[f64; INLINE_VALUES]>,
            modifiers: Modifiers,
        }
        let saved = Saved::deserialize(deserializer)?;
        if saved.base.len() != saved.current.len() {
            return Err(serde::de::Error::custom(format_args!(
                "an entity's attributes have {} base values and {} current ones",
                saved.base.len(),
                saved.current.len()
            )));
        }
        let mut values = saved.base;
        values.extend_from_slice(&saved.current);
        Ok(Attributes {
            profile: saved.profile,
            values,
            modifiers: saved.modifiers,
        })
    }
}

/// The attribute exists and the value is finite.
fn check_finite(
    schema: &AttributeSchema,
    attribute: AttributeId,
    value: f64,
) -> Result<(), AttributeError> {
    if attribute.index() >= schema.len() {
        Err(AttributeError::UnknownAttribute(attribute))
    } else if value.is_finite() {
        Ok(())
    } else {
        Err(AttributeError::NotFinite {
            attribute: Named::new(attribute, schema.name(attribute)),
            value,
        })
    }
}
