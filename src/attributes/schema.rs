//! [`AttributeSchema`]: the compiled attribute definitions every entity shares.

use serde::{Deserialize, Serialize};

use super::data::{AttributeData, BoundData, DerivedProfileData};
use super::derived::{self, DerivedProfile, ProfileId};
use crate::diagnostics::{LoadErrors, SourceFile};
use crate::names::NameTable;

/// Dense index of an attribute in its [`AttributeSchema`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct AttributeId(u16);

impl AttributeId {
    pub(crate) const fn new(index: usize) -> Self {
        Self(index as u16)
    }

    /// The dense index, usable to index per-attribute arrays.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// How the three modifier accumulators combine with the base value. The mode
/// is a property of the attribute, never of a modifier.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum AttributeMode {
    /// The value grows with bonuses: `(base + flat) × (1 + points) × mult`.
    #[default]
    Direct,
    /// The value is a span of time that shrinks with bonuses:
    /// `(base + flat) × (1 − points) ÷ mult`. A cooldown reduction is
    /// `Points`; "attack speed ×1.25" is `Mult 1.25`.
    Interval,
}

/// One end of an attribute's allowed range.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Bound {
    /// A constant.
    Value(f64),
    /// The current value of another attribute (`Health ≤ MaxHealth`).
    Attribute(AttributeId),
}

/// One compiled attribute definition.
#[derive(Clone, Debug, PartialEq)]
pub struct AttributeDef {
    /// The attribute's name, e.g. `"MaxHealth"`.
    pub name: String,
    /// Base value of a fresh entity.
    pub base: f64,
    /// How modifiers combine.
    pub mode: AttributeMode,
    /// Upper clamp of the summed percentage points (`0.60` = 60 pp). The lower
    /// clamp is always 0: points are bonuses, a penalty is a `Mult` below 1.
    /// Interval attributes default to a cap of `1.0` (a span cannot shrink
    /// below zero); Direct attributes default to no cap.
    pub cap: Option<f64>,
    /// Lower bound of the current value, applied after the formula.
    pub min: Option<Bound>,
    /// Upper bound of the current value, applied after the formula.
    pub max: Option<Bound>,
    /// A meta attribute (like `Damage`) carries a value into the
    /// post-execute step and holds no state of its own.
    pub meta: bool,
    /// For a meta attribute, the attribute it is subtracted from when an
    /// execution consumes it (`Damage` → `Health`; negative damage heals).
    pub drains: Option<AttributeId>,
    /// Keep the *base* value inside the bounds too. `Health` sets this so a
    /// lowered `MaxHealth` really lowers health, instead of hiding it until
    /// the debuff ends. This makes the base deliberately stateful: what it
    /// was clamped to depends on history, as health should.
    pub clamp_base: bool,
    /// A new entity's base starts at this attribute's value, read after
    /// the derived rules ran.
    pub starts_at: Option<AttributeId>,
}

impl AttributeDef {
    /// The effective points cap: the authored one, or the mode's default.
    pub fn points_cap(&self) -> f64 {
        match (self.cap, self.mode) {
            (Some(cap), _) => cap,
            (None, AttributeMode::Interval) => 1.0,
            (None, AttributeMode::Direct) => f64::INFINITY,
        }
    }
}

/// Every attribute definition and derived-attribute profile, compiled once
/// at load. Entities hold only values; the schema is shared.
#[derive(Clone, Debug)]
pub struct AttributeSchema {
    defs: Vec<AttributeDef>,
    names: NameTable,
    profiles: Vec<DerivedProfile>,
    profile_names: NameTable,
    /// The attributes with a `starts_at`, each after the one it starts at
    /// (a chain starts at its root's value, whatever the file's order).
    starts: Vec<AttributeId>,
}

impl Default for AttributeSchema {
    fn default() -> Self {
        Self::from_defs(Vec::new(), &[], &mut LoadErrors::default())
    }
}

/// The most attributes one schema holds (ids are `u16`).
pub const MAX_ATTRIBUTES: usize = u16::MAX as usize;

impl AttributeSchema {
    /// Compiles attribute and profile data. Problems are pushed to `errors`
    /// (located in their files); the schema is built from what is valid.
    pub fn build(
        attributes: &[(&SourceFile, &AttributeData)],
        profiles: &[(&SourceFile, &DerivedProfileData)],
        errors: &mut LoadErrors,
    ) -> AttributeSchema {
        let mut names = NameTable::new("attribute");
        let mut kept: Vec<(&SourceFile, &AttributeData)> = Vec::new();
        for &(file, data) in attributes {
            let defined_in = |first: usize| kept[first].0.name.as_str();
            if names
                .declare(&data.name, file, defined_in, errors)
                .is_some()
            {
                kept.push((file, data));
            }
        }
        if kept.len() > MAX_ATTRIBUTES {
            errors.push(crate::Diagnostic::error(
                "attribute schema",
                format!(
                    "{} attributes defined; a schema holds at most {MAX_ATTRIBUTES}",
                    kept.len()
                ),
            ));
            kept.truncate(MAX_ATTRIBUTES);
            // Names past the last id kept would resolve to no definition.
            names = NameTable::new("attribute");
            for (_, data) in &kept {
                let _ = names.insert(&data.name);
            }
        }

        let mut defs = Vec::with_capacity(kept.len());
        for &(file, data) in &kept {
            defs.push(compile_attribute(file, data, &names, errors));
        }
        // A meta attribute is zeroed after each execution: one draining into
        // another would pass the amount along to nothing.
        for (index, &(file, data)) in kept.iter().enumerate() {
            if let Some(target) = defs[index].drains.filter(|t| defs[t.index()].meta) {
                errors.push(file.error_after(
                    &data.name,
                    "drains",
                    format!(
                        "attribute `{}` drains into `{}`, another meta attribute; drain into a real one",
                        data.name,
                        defs[target.index()].name
                    ),
                ));
                defs[index].drains = None;
            }
        }
        // A starting value copies another attribute's: not a meta one's
        // (always 0 at rest), and not along a loop.
        for (index, &(file, data)) in kept.iter().enumerate() {
            let Some(from) = defs[index].starts_at else {
                continue;
            };
            let mut at = from;
            let mut steps = 0;
            let looped = loop {
                match defs[at.index()].starts_at {
                    _ if at.index() == index => break true,
                    Some(next) if steps < defs.len() => {
                        at = next;
                        steps += 1;
                    }
                    _ => break false,
                }
            };
            if defs[from.index()].meta || looped {
                errors.push(file.error_after(
                    &data.name,
                    "starts_at",
                    format!(
                        "attribute `{}` cannot start at `{}`: a meta attribute is always 0 at rest, and starting values may not go round in a loop",
                        data.name,
                        defs[from.index()].name
                    ),
                ));
                defs[index].starts_at = None;
            }
        }
        let schema_bounds_ok = derived::check_bound_cycles(&defs, &kept, errors);
        if !schema_bounds_ok {
            // A bound cycle would make evaluation order meaningless; drop the
            // attribute bounds so the rest of the schema can still be checked.
            for def in &mut defs {
                for bound in [&mut def.min, &mut def.max] {
                    if matches!(bound, Some(Bound::Attribute(_))) {
                        *bound = None;
                    }
                }
            }
        }
        Self::from_defs_with_names(defs, names, &kept, profiles, errors)
    }

    fn from_defs(
        defs: Vec<AttributeDef>,
        profiles: &[(&SourceFile, &DerivedProfileData)],
        errors: &mut LoadErrors,
    ) -> Self {
        let mut names = NameTable::new("attribute");
        for def in &defs {
            let _ = names.insert(&def.name);
        }
        Self::from_defs_with_names(defs, names, &[], profiles, errors)
    }

    /// The schema of `defs`, with the profiles compiled over them;
    /// `sources` (each def's file and data, when it came from one) locate
    /// what is found wrong.
    fn from_defs_with_names(
        mut defs: Vec<AttributeDef>,
        names: NameTable,
        sources: &[(&SourceFile, &AttributeData)],
        profiles: &[(&SourceFile, &DerivedProfileData)],
        errors: &mut LoadErrors,
    ) -> Self {
        let mut profile_names = NameTable::new("derived profile");
        let _ = profile_names.insert(derived::NO_PROFILE_NAME);
        let mut compiled = vec![DerivedProfile::none(&defs)];
        for &(file, data) in profiles {
            if profile_names.get(&data.name).is_some() {
                errors.push(file.error_at(
                    &data.name,
                    format!("derived profile `{}` is defined twice", data.name),
                ));
                continue;
            }
            if let Some(profile) = DerivedProfile::compile(file, data, &defs, &names, errors) {
                let _ = profile_names.insert(&data.name);
                compiled.push(profile);
            }
        }
        // Nor at one that follows the starting attribute itself, through
        // a bound or a derived rule: the start would read itself, and
        // settle on whatever the listing's order left.
        for index in 0..defs.len() {
            let Some(from) = defs[index].starts_at else {
                continue;
            };
            let start = AttributeId::new(index);
            if compiled.iter().any(|p| p.dependents(start).contains(&from)) {
                let (name, from_name) = (&defs[index].name, &defs[from.index()].name);
                let message = format!(
                    "attribute `{name}` cannot start at `{from_name}`: `{from_name}` follows `{name}` (through a bound or a derived rule), so the start would read itself"
                );
                errors.push(match sources.get(index) {
                    Some((file, data)) => file.error_after(&data.name, "starts_at", message),
                    None => crate::Diagnostic::error("attribute schema", message),
                });
                defs[index].starts_at = None;
            }
        }
        let starts = start_order(&defs);
        AttributeSchema {
            defs,
            names,
            profiles: compiled,
            profile_names,
            starts,
        }
    }

    /// The attributes with a starting value, each after the one it starts
    /// at.
    pub(crate) fn starts(&self) -> &[AttributeId] {
        &self.starts
    }

    /// Number of attributes.
    pub fn len(&self) -> usize {
        self.defs.len()
    }

    /// True when no attribute is defined.
    pub fn is_empty(&self) -> bool {
        self.defs.is_empty()
    }

    /// Every attribute id, in definition order.
    pub fn ids(&self) -> impl ExactSizeIterator<Item = AttributeId> {
        (0..self.defs.len()).map(AttributeId::new)
    }

    /// The definition of `id`. Panics for an id this schema did not hand
    /// out (another catalog's); [`try_def`](Self::try_def) does not.
    pub fn def(&self, id: AttributeId) -> &AttributeDef {
        &self.defs[id.index()]
    }

    /// The definition of `id`, `None` for an id this schema did not hand
    /// out (another catalog's, or one read from a peer running other
    /// content).
    pub fn try_def(&self, id: AttributeId) -> Option<&AttributeDef> {
        self.defs.get(id.index())
    }

    /// The name of `id`; `"?"` for an id this schema did not hand out, as
    /// [`TagRegistry::name`](crate::TagRegistry::name) answers for a tag,
    /// so a refusal or a record from other content can still be shown.
    pub fn name(&self, id: AttributeId) -> &str {
        self.try_def(id).map_or("?", |def| def.name.as_str())
    }

    /// The attribute called `name` (a hash lookup: load time only).
    pub fn get(&self, name: &str) -> Option<AttributeId> {
        self.names.get(name).map(AttributeId::new)
    }

    /// Like [`get`](Self::get), with a located error and suggestion.
    pub fn resolve_in(
        &self,
        name: &str,
        file: &SourceFile,
    ) -> Result<AttributeId, crate::Diagnostic> {
        self.names
            .resolve_in(name, &file.name, &file.text)
            .map(AttributeId::new)
    }

    /// The name of a derived profile (`"(none)"` for the rule-less one).
    pub fn profile_name(&self, id: ProfileId) -> &str {
        self.profile_names.iter().nth(id.index()).unwrap_or("?")
    }

    /// Number of derived profiles, the rule-less one included.
    pub fn profile_count(&self) -> usize {
        self.profiles.len()
    }

    /// The derived profile called `name`.
    pub fn profile(&self, name: &str) -> Option<ProfileId> {
        self.profile_names.get(name).map(ProfileId::new)
    }

    pub(crate) fn derived(&self, id: ProfileId) -> &DerivedProfile {
        &self.profiles[id.index()]
    }

    /// The name of a derived profile whose rules own `attribute`'s base,
    /// if one does: an execution into that base on an entity of the
    /// profile changes nothing.
    pub(crate) fn owning_profile(&self, attribute: AttributeId) -> Option<&str> {
        let owner = self.profiles.iter().position(|p| p.owns(attribute))?;
        self.profile_names.iter().nth(owner)
    }

    /// True when a change of `from` moves `into` in some profile: it is
    /// `into`, or `into` depends on it through derived rules or bounds.
    pub(crate) fn moves(&self, from: AttributeId, into: AttributeId) -> bool {
        from == into
            || self
                .profiles
                .iter()
                .any(|p| p.dependents(from).contains(&into))
    }

    /// The rules of a profile in evaluation order, as `(target, base, terms)`.
    pub fn profile_rules(
        &self,
        id: ProfileId,
    ) -> impl Iterator<Item = (AttributeId, f64, &[(AttributeId, f64)])> {
        // A profile not in this schema has no rules here.
        self.profiles
            .get(id.index())
            .into_iter()
            .flat_map(|p| p.rules())
    }
}

/// The attributes with a `starts_at` (loops already refused), each after
/// the one it starts at, otherwise in id order.
fn start_order(defs: &[AttributeDef]) -> Vec<AttributeId> {
    let mut placed = vec![false; defs.len()];
    let mut order = Vec::new();
    for index in 0..defs.len() {
        // The chain from this attribute down to its root, then placed
        // root first.
        let mut chain = Vec::new();
        let mut at = AttributeId::new(index);
        while let (false, Some(from)) = (placed[at.index()], defs[at.index()].starts_at) {
            placed[at.index()] = true;
            chain.push(at);
            at = from;
        }
        order.extend(chain.into_iter().rev());
    }
    order
}

fn compile_attribute(
    file: &SourceFile,
    data: &AttributeData,
    names: &NameTable,
    errors: &mut LoadErrors,
) -> AttributeDef {
    let name = &data.name;
    let mut finite = |what: &str, value: f64| -> f64 {
        if value.is_finite() {
            value
        } else {
            errors.push(file.error_after(
                name,
                what,
                format!("attribute `{name}`: {what} must be a finite number, found {value}"),
            ));
            0.0
        }
    };
    let base = finite("base", data.base);
    let cap = data.cap.map(|cap| finite("cap", cap));
    if let Some(cap) = cap {
        if cap < 0.0 {
            errors.push(file.error_after(
                name,
                "cap",
                format!("attribute `{name}`: cap must not be negative, found {cap}"),
            ));
        } else if cap > 1.0 && data.mode == AttributeMode::Interval {
            errors.push(file.error_after(
                name,
                "cap",
                format!("attribute `{name}`: an Interval attribute's points shorten its span by that fraction, so its cap must be at most 1 (a span below zero), found {cap}"),
            ));
        }
    }
    let bound = |which: &str, data: &Option<BoundData>, errors: &mut LoadErrors| -> Option<Bound> {
        match data.as_ref()? {
            BoundData::Value(value) if value.is_finite() => Some(Bound::Value(*value)),
            BoundData::Value(value) => {
                errors.push(file.error_after(
                    name,
                    which,
                    format!("attribute `{name}`: {which} bound must be finite, found {value}"),
                ));
                None
            }
            BoundData::Attribute(other) if other == name => {
                errors.push(file.error_after(
                    name,
                    which,
                    format!("attribute `{name}` cannot bound itself"),
                ));
                None
            }
            BoundData::Attribute(other) => match names.resolve_in(other, &file.name, &file.text) {
                Ok(index) => Some(Bound::Attribute(AttributeId::new(index))),
                Err(error) => {
                    errors.push(error);
                    None
                }
            },
        }
    };
    let min = bound("min", &data.min, errors);
    let max = bound("max", &data.max, errors);
    if let (Some(Bound::Value(lo)), Some(Bound::Value(hi))) = (min, max) {
        if lo > hi {
            errors.push(file.error_after(
                name,
                "min",
                format!("attribute `{name}`: min {lo} is above max {hi}"),
            ));
        }
    }
    let drains = data.drains.as_ref().and_then(|target| {
        if !data.meta {
            errors.push(file.error_after(
                name,
                "drains",
                format!("attribute `{name}`: only a meta attribute can drain into another"),
            ));
            return None;
        }
        match names.resolve_in(target, &file.name, &file.text) {
            Ok(index) if index == names.get(name).unwrap_or(usize::MAX) => {
                errors.push(file.error_after(
                    name,
                    "drains",
                    format!("attribute `{name}` cannot drain into itself"),
                ));
                None
            }
            Ok(index) => Some(AttributeId::new(index)),
            Err(error) => {
                errors.push(error);
                None
            }
        }
    });
    let starts_at = data.starts_at.as_ref().and_then(|other| {
        let resolved = match names.resolve_in(other, &file.name, &file.text) {
            Ok(index) => AttributeId::new(index),
            Err(error) => {
                errors.push(error.at_text_after(&file.text, name, other));
                return None;
            }
        };
        if other == name || data.meta {
            errors.push(file.error_after(
                name,
                "starts_at",
                format!(
                    "attribute `{name}` cannot start at `{other}` (itself, or a meta attribute)"
                ),
            ));
            return None;
        }
        Some(resolved)
    });
    if data.meta && data.base != 0.0 {
        errors.push(file.error_after(
            name,
            "base",
            format!("meta attribute `{name}` holds no state; its base must be 0"),
        ));
    }
    // A drain takes the meta attribute's base, which only `clamp_base`
    // bounds: without it a `min: 0` would let a negative hit heal, unseen.
    if data.meta && !data.clamp_base && (data.min.is_some() || data.max.is_some()) {
        let field = if data.min.is_some() { "min" } else { "max" };
        errors.push(file.error_after(
            name,
            field,
            format!("meta attribute `{name}`: its bounds would never apply, since a drain takes the value written; add `clamp_base: true` to bound what it drains, or drop them"),
        ));
    }
    // An execution zeroes a meta attribute once it has drained it; one
    // that drains nowhere would lose what was written to it, unseen.
    if data.meta && data.drains.is_none() {
        errors.push(file.error_after(
            name,
            "meta",
            format!("meta attribute `{name}` drains nowhere: what an execution writes to it would vanish; give it `drains:` (the attribute it is subtracted from)"),
        ));
    }
    AttributeDef {
        name: name.clone(),
        base,
        mode: data.mode,
        cap,
        min,
        max,
        meta: data.meta,
        drains,
        clamp_base: data.clamp_base,
        starts_at,
    }
}
