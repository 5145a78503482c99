//! [`Inspector`]: one entity's whole state at the current instant (the
//! role of Unreal's `showdebug abilitysystem`), as serde data and as text.
//!
//! An [`Inspection`] lists the entity's attributes (base, current, bounds
//! and every modifier source, with points lost to a cap), its owned tags
//! with their counts and where each comes from, its active effects, and
//! its granted abilities with what each is doing or why it would be
//! refused now. Game modules add sections of their own through
//! [`InspectSection`] (combat's is [`combat::CombatInspect`](crate::combat::CombatInspect)).
//!
//! Inspecting is read-only: it changes nothing in the world or the
//! context, so a run that inspects gives the same trace and checksum as
//! one that does not.
//!
//! ```
//! use gaskit::prelude::*;
//! use gaskit::inspect::Inspector;
//!
//! let mut builder = CatalogBuilder::new();
//! builder.tags().add_source("game.tags", "Status.Blessed\n");
//! builder.add_source("game.ron", r#"(
//!     attributes: [(name: "Luck", base: 3)],
//!     effects: [(name: "GE_Blessing", duration: Duration(Constant(30)),
//!                granted_tags: ["Status.Blessed"],
//!                modifiers: [(attribute: "Luck", op: Flat, magnitude: Constant(2))])],
//! )"#);
//! let mut gas = Gas::new(builder.build().unwrap());
//! let mut world = hecs::World::new();
//! let monk = world.spawn((gaskit::Name("monk".into()), gas.new_ability_system()));
//! let blessing = gas.catalog().effects().get("GE_Blessing").unwrap();
//! gas.apply_effect(&mut world, monk, EffectSpec::new(blessing)).unwrap();
//!
//! let seen = Inspector::new().inspect(&world, &gas, monk).unwrap();
//! assert_eq!(seen.attributes[0].current, 5.0);
//! assert_eq!(seen.tags[0].from, ["GE_Blessing"]);
//! assert!(seen.to_string().contains("GE_Blessing"));
//! ```

mod text;

use std::fmt;

use hecs::{Entity, World};
use serde::Serialize;

use crate::abilities::{AbilitySystem, ActivationFailure, GameplayEvent, Wait};
use crate::attributes::{Contribution, SourceId};
use crate::gas::Gas;
use crate::time::{SimDuration, SimTime};
use crate::trace::EntityNames;

/// One entity at one instant.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Inspection {
    /// The entity's name.
    pub entity: String,
    /// When it was inspected.
    pub at: SimTime,
    /// Every attribute that holds state (meta attributes, which never do,
    /// are left out), in schema order.
    pub attributes: Vec<AttributeView>,
    /// Every owned tag, in registry order.
    pub tags: Vec<TagView>,
    /// Every active effect, in the host's order.
    pub effects: Vec<EffectView>,
    /// Every granted ability, in grant order.
    pub abilities: Vec<AbilityView>,
    /// What game modules add (a combatant's target, weave queue...).
    pub sections: Vec<Section>,
}

/// An attribute and how its current value comes about.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AttributeView {
    /// Its name.
    pub name: String,
    /// Base value.
    pub base: f64,
    /// Current value.
    pub current: f64,
    /// The lower bound in effect, if any.
    pub min: Option<f64>,
    /// The upper bound in effect, if any.
    pub max: Option<f64>,
    /// Every modifier on it, in the order the formula combines them.
    pub sources: Vec<SourceView>,
    /// Bonus points the cap ate (positive) or a negative sum ignored
    /// (negative); zero when every point counts.
    pub points_lost: f64,
}

/// One modifier on an attribute.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SourceView {
    /// The active effect holding it, or `source #n` for one game code added.
    pub source: String,
    /// `flat`, `points`, `mult` or `override`.
    pub op: &'static str,
    /// Its magnitude for all the effect's stacks.
    pub value: f64,
}

/// An owned tag and who holds it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TagView {
    /// The tag.
    pub tag: String,
    /// References held.
    pub count: u32,
    /// Where the references come from: `loose`, `loose (saved)`, an
    /// effect's name, or an active ability's name.
    pub from: Vec<String>,
}

/// An active effect.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EffectView {
    /// The effect's name.
    pub effect: String,
    /// Stacks.
    pub stacks: u32,
    /// Time left in the current window; `None` when infinite.
    pub remaining: Option<SimDuration>,
    /// The whole current window; `None` when infinite.
    pub duration: Option<SimDuration>,
    /// Time between executions, for a periodic effect.
    pub period: Option<SimDuration>,
    /// When the next execution is due, for a periodic effect.
    pub next_tick: Option<SimTime>,
    /// Held back by its ongoing requirements (no tags, no modifiers).
    pub inhibited: bool,
    /// The tags it grants while uninhibited.
    pub granted_tags: Vec<String>,
    /// The entity that applied it.
    pub source: Option<String>,
}

/// A granted ability and what it is doing.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AbilityView {
    /// The ability's name.
    pub ability: String,
    /// Its level.
    pub level: u32,
    /// Running, or what activating it now would meet.
    pub status: AbilityStatus,
}

/// What an ability is doing, or what activating it now would meet (asked
/// with [`Gas::can_activate`] for its bare trigger event: no target, no
/// payload, so an ability that needs them says so, unless its cooldown
/// runs, which it then says instead).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum AbilityStatus {
    /// An instance runs.
    Active {
        /// What it waits for, in words.
        waiting_for: String,
        /// When its delay ends, while it waits on one.
        until: Option<SimTime>,
    },
    /// It would activate.
    Ready,
    /// Its cooldown runs.
    OnCooldown {
        /// The cooldown tag held.
        tag: String,
        /// Time left.
        remaining: SimDuration,
    },
    /// It would be refused.
    Refused {
        /// The player-facing reason.
        reason: String,
        /// What refused, when known (the tag, the ability, the attribute).
        detail: Option<String>,
    },
}

/// A titled list of facts a game module adds to an inspection.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Section {
    /// The section's title.
    pub title: String,
    /// `(name, value)` pairs, in the order to show them.
    pub fields: Vec<(String, String)>,
}

impl Section {
    /// An empty section titled `title`.
    pub fn new(title: impl Into<String>) -> Self {
        Self {
            title: title.into(),
            fields: Vec::new(),
        }
    }

    /// Adds a field.
    pub fn field(mut self, name: impl Into<String>, value: impl fmt::Display) -> Self {
        self.fields.push((name.into(), value.to_string()));
        self
    }
}

/// A game module's part of an inspection.
pub trait InspectSection: Send + Sync {
    /// The section for `entity`, or `None` when the module has nothing on
    /// it. Read-only, like the whole inspection.
    fn section(&self, world: &World, gas: &Gas, entity: Entity) -> Option<Section>;
}

/// Why an entity cannot be inspected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InspectError {
    /// The entity does not exist.
    NoSuchEntity(Entity),
    /// The entity has no [`AbilitySystem`].
    NoAbilitySystem(String),
}

impl fmt::Display for InspectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoSuchEntity(entity) => write!(f, "entity {entity:?} does not exist"),
            Self::NoAbilitySystem(name) => write!(f, "`{name}` has no ability system"),
        }
    }
}

impl std::error::Error for InspectError {}

/// Builds [`Inspection`]s: the core's view plus each registered section.
#[derive(Default)]
pub struct Inspector {
    sections: Vec<Box<dyn InspectSection>>,
}

impl Inspector {
    /// An inspector of the core's state only.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a game module's section.
    pub fn with(mut self, section: impl InspectSection + 'static) -> Self {
        self.sections.push(Box::new(section));
        self
    }

    /// `entity` at the context's current instant.
    pub fn inspect(
        &self,
        world: &World,
        gas: &Gas,
        entity: Entity,
    ) -> Result<Inspection, InspectError> {
        if !world.contains(entity) {
            return Err(InspectError::NoSuchEntity(entity));
        }
        let name = world.name_of(entity);
        let Ok(system) = world.get::<&AbilitySystem>(entity) else {
            return Err(InspectError::NoAbilitySystem(name));
        };
        Ok(Inspection {
            entity: name,
            at: gas.now(),
            attributes: attributes(gas, &system),
            tags: tags(gas, &system),
            effects: effects(world, gas, &system),
            abilities: abilities(world, gas, entity, &system),
            sections: self
                .sections
                .iter()
                .filter_map(|s| s.section(world, gas, entity))
                .collect(),
        })
    }
}

fn attributes(gas: &Gas, system: &AbilitySystem) -> Vec<AttributeView> {
    let catalog = gas.catalog();
    let schema = catalog.attributes();
    let source_name = |source: SourceId| {
        let effects = &system.host.effects;
        effects
            .iter()
            .find(|(key, _)| key.source_id() == source)
            .map(|(_, e)| catalog.effects().def(e.def).name.clone())
            .unwrap_or_else(|| format!("source #{}", source.0))
    };
    schema
        .ids()
        .filter(|&id| !schema.def(id).meta)
        .map(|id| {
            let breakdown = system.attributes().breakdown(schema, id);
            let ops: [(&'static str, &Vec<Contribution>); 4] = [
                ("flat", &breakdown.flat),
                ("points", &breakdown.points),
                ("mult", &breakdown.mult),
                ("override", &breakdown.overrides),
            ];
            let sources = ops
                .into_iter()
                .flat_map(|(op, list)| {
                    list.iter().map(move |c| SourceView {
                        source: source_name(c.source),
                        op,
                        value: c.value,
                    })
                })
                .collect();
            let finite = |v: f64| Some(v).filter(|v| v.is_finite());
            AttributeView {
                name: breakdown.name.clone(),
                base: breakdown.base,
                current: breakdown.value,
                min: finite(breakdown.bounds.0),
                max: finite(breakdown.bounds.1),
                sources,
                points_lost: breakdown.points_lost,
            }
        })
        .collect()
}

fn tags(gas: &Gas, system: &AbilitySystem) -> Vec<TagView> {
    let catalog = gas.catalog();
    let registry = catalog.tags();
    let abilities = &system.abilities;
    system
        .tags(catalog.effects(), gas.now())
        .iter()
        .map(|(tag, count)| {
            let mut from = Vec::new();
            if abilities.loose.counts().count(tag) > 0 {
                let saved = abilities.loose.saved().has_exact(tag);
                from.push(if saved { "loose (saved)" } else { "loose" }.to_owned());
            }
            for effect in system.host.effects.values() {
                let def = catalog.effects().def(effect.def);
                let grants = !effect.inhibited && !effect.has_ended(gas.now());
                if grants && def.granted_tags.iter().any(|t| t == tag) {
                    from.push(def.name.clone());
                }
            }
            for instance in abilities.instances.values() {
                let def = catalog.abilities().def(instance.ability());
                if def.activation_owned_tags.iter().any(|t| t == tag) {
                    from.push(def.name.clone());
                }
            }
            TagView {
                tag: registry.name(tag).to_owned(),
                count,
                from,
            }
        })
        .collect()
}

fn effects(world: &World, gas: &Gas, system: &AbilitySystem) -> Vec<EffectView> {
    let catalog = gas.catalog();
    let now = gas.now();
    system
        .host
        .effects
        .values()
        .filter(|effect| !effect.has_ended(now))
        .map(|effect| {
            let def = catalog.effects().def(effect.def);
            EffectView {
                effect: def.name.clone(),
                stacks: u32::from(effect.stacks),
                remaining: effect.duration().map(|_| effect.remaining(now)),
                duration: effect.duration(),
                period: def.period.map(|p| p.interval),
                next_tick: def.period.map(|_| effect.next_period()),
                inhibited: effect.inhibited,
                granted_tags: def
                    .granted_tags
                    .iter()
                    .map(|t| catalog.tags().name(t).to_owned())
                    .collect(),
                source: effect.source.map(|s| world.name_of(s)),
            }
        })
        .collect()
}

fn abilities(world: &World, gas: &Gas, entity: Entity, system: &AbilitySystem) -> Vec<AbilityView> {
    let catalog = gas.catalog();
    system
        .granted_abilities()
        .map(|(ability, level)| {
            let def = catalog.abilities().def(ability);
            let status = match system.active_instance(ability) {
                Some(instance) => {
                    let running = &system.abilities.instances[instance];
                    AbilityStatus::Active {
                        waiting_for: describe_wait(gas, system, running.wait),
                        until: running.wait_timer.and_then(|t| gas.timer_due(t)),
                    }
                }
                None => {
                    let event = GameplayEvent::new(def.trigger);
                    // The bare event names no source or target, and those
                    // are checked before the cooldown: a targeted ability
                    // cooling down says so, not that the (missing) target
                    // is not valid.
                    let answer = gas.can_activate(world, entity, ability, Some(&event));
                    let answer = match answer {
                        Err(
                            ActivationFailure::SourceRequirements
                            | ActivationFailure::TargetRequirements,
                        ) => gas
                            .cooldown_running(system, ability)
                            .map_or(answer, |(tag, remaining)| {
                                Err(ActivationFailure::Cooldown { tag, remaining })
                            }),
                        _ => answer,
                    };
                    match answer {
                        Ok(()) => AbilityStatus::Ready,
                        Err(ActivationFailure::Cooldown { tag, remaining }) => {
                            AbilityStatus::OnCooldown {
                                tag: catalog.tags().name(tag).to_owned(),
                                remaining,
                            }
                        }
                        Err(failure) => AbilityStatus::Refused {
                            reason: failure.message(catalog.tags()).to_owned(),
                            detail: failure.detail(catalog),
                        },
                    }
                }
            };
            AbilityView {
                ability: def.name.clone(),
                level,
                status,
            }
        })
        .collect()
}

/// A wait in words.
fn describe_wait(gas: &Gas, system: &AbilitySystem, wait: Wait) -> String {
    let catalog = gas.catalog();
    let tag = |t| catalog.tags().name(t);
    let attribute = |a| catalog.attributes().name(a);
    match wait {
        Wait::Nothing => "nothing (runs when poked)".to_owned(),
        Wait::Delay => "a delay".to_owned(),
        Wait::Event(t) => format!("event {}", tag(t)),
        Wait::TagAdded(t) => format!("{} to be added", tag(t)),
        Wait::TagRemoved(t) => format!("{} to be removed", tag(t)),
        Wait::AttributeBelow(a, v) => format!("{} below {v}", attribute(a)),
        Wait::AttributeAbove(a, v) => format!("{} above {v}", attribute(a)),
        Wait::EffectRemoved(key) => match system.host.effect(key, gas.now()) {
            Some((effect, _)) => format!("{} to end", catalog.effects().def(effect).name),
            None => "an effect to end".to_owned(),
        },
    }
}
