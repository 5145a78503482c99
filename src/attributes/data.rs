//! The data forms of attributes and derived profiles, as written in
//! `abilities/*.ron`.
//!
//! ```ron
//! attributes: [
//!     (name: "MaxHealth", base: 40, min: 1),
//!     (name: "Health", min: 0, max: "MaxHealth", clamp_base: true,
//!      starts_at: "MaxHealth", on_zero: "GE_Dead"),
//!     (name: "Damage", meta: true, drains: "Health"),
//!     (name: "AttackSpeed", base: 1.0, min: 0.1),
//!     (name: "UltimateCooldown", base: 60, mode: Interval, cap: 0.60),
//! ],
//! derived: [
//!     (name: "Hero", rules: [
//!         (target: "MaxHealth", base: 100, terms: [("Vitality", 10)]),
//!         (target: "CombatPower", terms: [("AttackPower", 1), ("Armor", 0.25)]),
//!     ]),
//! ],
//! ```

use serde::{Deserialize, Serialize};

use super::schema::AttributeMode;

/// One attribute as written in data. See [`AttributeDef`](crate::AttributeDef)
/// for what each field means.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttributeData {
    /// Unique name, `[A-Za-z0-9_]`.
    pub name: String,
    /// Default base value (0 when omitted).
    #[serde(default)]
    pub base: f64,
    /// `Direct` (default) or `Interval`.
    #[serde(default)]
    pub mode: AttributeMode,
    /// Points cap as a fraction (`0.60` = 60 pp).
    #[serde(default)]
    pub cap: Option<f64>,
    /// Lower bound: a number or an attribute name.
    #[serde(default)]
    pub min: Option<BoundData>,
    /// Upper bound: a number or an attribute name.
    #[serde(default)]
    pub max: Option<BoundData>,
    /// A meta attribute (`Damage`): carries a value into post-execute only.
    /// Its bounds apply only with `clamp_base` (a drain takes the value
    /// written), so bounds without it are a load error.
    #[serde(default)]
    pub meta: bool,
    /// For a meta attribute: the attribute its value is subtracted from in
    /// the post-execute step (`Damage` drains into `Health`).
    #[serde(default)]
    pub drains: Option<String>,
    /// Keep the base inside the bounds too (`Health`).
    #[serde(default)]
    pub clamp_base: bool,
    /// Start a new entity's base at another attribute's value, read after
    /// its derived rules ran (`Health` starts at `MaxHealth`).
    #[serde(default)]
    pub starts_at: Option<String>,
    /// An effect applied to the entity when an execution brings this
    /// attribute from above zero to zero or below (`Health` at zero grants
    /// `Status.Dead` through `GE_Dead`).
    #[serde(default)]
    pub on_zero: Option<String>,
}

/// A bound as written: `0`, `1.5` or `"MaxHealth"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum BoundData {
    /// A constant.
    Value(f64),
    /// Another attribute's current value.
    Attribute(String),
}

/// A derived-attribute profile as written in data.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DerivedProfileData {
    /// Unique profile name.
    pub name: String,
    /// At most 8 rules; order is kept between independent rules.
    pub rules: Vec<DerivedRuleData>,
}

/// `target = base + Σ source × coefficient`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DerivedRuleData {
    /// The attribute whose base value the rule owns.
    pub target: String,
    /// The constant term (0 when omitted).
    #[serde(default)]
    pub base: f64,
    /// At most 8 `(source attribute, coefficient)` terms; may be empty.
    #[serde(default)]
    pub terms: Vec<(String, f64)>,
}
