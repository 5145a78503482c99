//! [`Attributes`]: one entity's base values, current values and modifiers.

use std::fmt;

use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

use super::breakdown::Breakdown;
use super::derived::ProfileId;
use super::formula;
use super::modifiers::{accumulate, ModOp, Modifiers, SourceId};
use super::schema::{AttributeId, AttributeSchema};

/// Inline capacity for per-entity value arrays.
const INLINE_ATTRIBUTES: usize = 8;

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
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum AttributeError {
    /// NaN or infinity offered as a base value or modifier magnitude.
    NotFinite {
        /// The attribute written to.
        attribute: AttributeId,
        /// The value offered.
        value: f64,
    },
}

impl fmt::Display for AttributeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AttributeError::NotFinite { attribute, value } => write!(
                f,
                "attribute #{} rejects non-finite value {value}",
                attribute.index()
            ),
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
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Attributes {
    profile: ProfileId,
    base: SmallVec<[f64; INLINE_ATTRIBUTES]>,
    current: SmallVec<[f64; INLINE_ATTRIBUTES]>,
    modifiers: Modifiers,
}

impl Attributes {
    /// Default base values, no modifiers, no derived profile.
    pub fn new(schema: &AttributeSchema) -> Self {
        Self::with_profile(schema, ProfileId::NONE)
    }

    /// Default base values and the derived rules of `profile`, evaluated.
    pub fn with_profile(schema: &AttributeSchema, profile: ProfileId) -> Self {
        let base: SmallVec<_> = schema.ids().map(|id| schema.def(id).base).collect();
        let mut attributes = Attributes {
            profile,
            current: base.clone(),
            base,
            modifiers: Modifiers::default(),
        };
        let mut changes = AttributeChanges::new();
        for &id in schema.derived(profile).order() {
            attributes.recompute_one(schema, id, &mut changes);
        }
        attributes
    }

    /// The derived profile in use.
    pub fn profile(&self) -> ProfileId {
        self.profile
    }

    /// The effective value of `id`.
    #[inline]
    pub fn current(&self, id: AttributeId) -> f64 {
        self.current[id.index()]
    }

    /// The base value of `id`.
    #[inline]
    pub fn base(&self, id: AttributeId) -> f64 {
        self.base[id.index()]
    }

    /// Every current value, indexed by attribute.
    pub(crate) fn ids_values(&self, schema: &AttributeSchema) -> Vec<f64> {
        schema.ids().map(|id| self.current(id)).collect()
    }

    /// Number of active modifiers over all attributes.
    pub fn modifier_count(&self) -> usize {
        self.modifiers.len()
    }

    /// Sets the base value of `id` and recomputes what depends on it.
    /// A derived target's base is owned by its rule and is overwritten the
    /// next time the rule runs.
    pub fn set_base(
        &mut self,
        schema: &AttributeSchema,
        id: AttributeId,
        value: f64,
    ) -> Result<AttributeChanges, AttributeError> {
        check_finite(id, value)?;
        self.base[id.index()] = value;
        Ok(self.refresh(schema, id))
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
        check_finite(id, value)?;
        self.modifiers.insert(id, op, value, source);
        Ok(self.refresh(schema, id))
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
            .evaluate_rule(id, &self.current)
        {
            if value.is_finite() {
                self.base[index] = value;
            }
        }
        let def = schema.def(id);
        let range = formula::bounds(def, &self.current);
        if def.clamp_base {
            self.base[index] = formula::clamp(self.base[index], range);
        }
        let acc = accumulate(self.modifiers.of(id));
        let value = formula::clamp(formula::unbounded(def, self.base[index], &acc), range);
        let old = self.current[index];
        if value.is_finite() && value.to_bits() != old.to_bits() {
            self.current[index] = value;
            changes.push(AttributeChange {
                attribute: id,
                old,
                new: value,
            });
        }
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
            &self.current,
        )
    }
}

fn check_finite(attribute: AttributeId, value: f64) -> Result<(), AttributeError> {
    if value.is_finite() {
        Ok(())
    } else {
        Err(AttributeError::NotFinite { attribute, value })
    }
}
