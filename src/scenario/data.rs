//! The scenario file format (RON), as a designer writes it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A scripted fight: who is there, what they do when, and how to run it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioData {
    /// RNG seed.
    #[serde(default)]
    pub seed: u64,
    /// Simulated seconds to run.
    pub duration: f64,
    /// Frame step in seconds (results do not depend on it).
    #[serde(default = "default_step")]
    pub step: f64,
    /// Trace categories to record: `Effects`, `Attributes`, `Cues`,
    /// `Abilities`, `Combat`, `Movement`, `Progress` (default: `Abilities`,
    /// `Combat`, `Movement` and `Attributes`).
    #[serde(default)]
    pub trace: Option<Vec<String>>,
    /// The fighters.
    pub combatants: Vec<CombatantData>,
    /// Timed inputs, applied in order; inputs at the same instant apply in
    /// file order.
    #[serde(default)]
    pub timeline: Vec<InputData>,
}

fn default_step() -> f64 {
    0.05
}

/// One fighter.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CombatantData {
    /// Unique name (also the trace name).
    pub name: String,
    /// Combatant kind (default `Default`).
    pub kind: Option<String>,
    /// Every skill's level (default 1, Hitpoints 10).
    pub level: Option<u32>,
    /// Per-skill levels, by skill tag: `{"Skill.Combat.Melee": 40}`.
    pub levels: BTreeMap<String, u32>,
    /// Items worn: `[("Bronze Scimitar", 1), ("Bronze Arrow", 50)]`.
    pub equipment: Vec<(String, u32)>,
    /// Items carried.
    pub inventory: Vec<(String, u32)>,
    /// Style tag (default Aggressive).
    pub style: Option<String>,
    /// Current spellbook tag (unlocked too).
    pub spellbook: Option<String>,
    /// Autocast spell.
    pub autocast: Option<String>,
    /// Start position in cm (default the origin); finite.
    pub position: (f64, f64),
    /// Mover speed in cm/s, ≥ 0 (default 0: the fighter never moves, so
    /// give one to any fighter that has to walk up or chase).
    pub speed: f64,
    /// Base attribute overrides applied after spawning: `{"AttackSpeed": 1.25}`.
    pub attributes: BTreeMap<String, f64>,
    /// The client that owns this fighter, if any.
    pub owner: Option<u32>,
    /// Abilities granted on top of the standard set
    /// ([`SCENARIO_ABILITIES`](super::SCENARIO_ABILITIES)): `["GA_Lifesteal"]`.
    pub grant: Vec<String>,
    /// Standard abilities this fighter goes without: `["GA_Death"]`.
    pub withhold: Vec<String>,
}

/// An input at a time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputData {
    /// When, in seconds.
    pub at: f64,
    /// What.
    #[serde(rename = "do")]
    pub action: ActionData,
}

/// What an input does. Fighters are named by their scenario names.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ActionData {
    /// `Engage(attacker, target)`: an attack click: the walk-up
    /// (`Action.Trigger.QueuedInteract`) carrying the engage event, which
    /// fires once the target is within reach.
    Engage(String, String),
    /// `Cast(caster, target, spell)`: the cast event (a weave while engaged).
    Cast(String, String, String),
    /// `SetStyle(who, style tag)`: the set-style event.
    SetStyle(String, String),
    /// `Disengage(who)`: the disengage event.
    Disengage(String),
    /// `Autocast(who, spell or None)`: the autocast-set event.
    Autocast(String, Option<String>),
    /// `Eat(who, item)`: the eat event.
    Eat(String, String),
    /// `Event(who, tag)`: any other gameplay event (a buff ability's trigger).
    Event(String, String),
    /// `Move(who, (x, y))`: a move order ([`combat::move_order`](crate::combat::move_order)):
    /// cancels any walk-up and engagement, then moves the body.
    Move(String, (f64, f64)),
    /// `OpenModal(who, modal tag)`: a loose `Action.Modal.*` tag.
    OpenModal(String, String),
    /// `CloseModal(who, modal tag)`.
    CloseModal(String, String),
    /// `Stun(who, seconds)`: the stun effect.
    Stun(String, f64),
    /// `Equip(who, item)`: equip from the inventory.
    Equip(String, String),
    /// `Save(who)`: save the profile (a disconnect while in combat is a death).
    Save(String),
    /// `Despawn(who)`.
    Despawn(String),
}
