//! [`Arena`]: a crowd fight for load tests, benchmarks and profiling.
//!
//! Spawns combatants on a 2D plane in small groups whose members engage each
//! other (each attacks the next one round its group, walking up first: members
//! start 350–650 cm from their group's centre). Fighters are weak (every skill but Hitpoints is
//! at level one) and carry an endurance effect that multiplies `MaxHealth`
//! by a million, so fights never end and a run of any length measures the
//! steady state of the engagement loop rather than deaths. The classes
//! cycle through the mix: melee (scimitar), ranged (shortbow with arrows)
//! and magic (Wind Strike on autocast with runes).
//!
//! The arena example (`cargo run --release --example arena`), the
//! allocation test and the benches all build their fights here, so they
//! measure the same thing.
//!
//! ```
//! use gaskit::arena::{Arena, ArenaConfig};
//! use gaskit::prelude::*;
//!
//! let mut arena = Arena::new(ArenaConfig { combatants: 40, ..ArenaConfig::default() }).unwrap();
//! arena.run_for(SimDuration::from_secs(20), SimDuration::from_millis(50));
//! assert!(arena.attacks_resolved() > 100);
//! assert_eq!(arena.engaged(), 40);
//! ```

use std::sync::Arc;

use hecs::{Entity, World};

use crate::combat::{
    self, native, CombatDefs, CombatRuntime, Combatant, Kinematic, Skill, Skills, Vec2,
};
use crate::time::{SimDuration, SimTime};
use crate::{AbilitySystem, Catalog, GameplayEvent, Gas};

/// The weapon a fighter of the arena uses.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum WeaponClass {
    /// Bronze scimitar.
    Melee,
    /// Oak shortbow with bronze arrows.
    Ranged,
    /// Wind Strike on autocast, with air and mind runes.
    Magic,
}

impl WeaponClass {
    /// Every class, in the default mix order.
    pub const ALL: [WeaponClass; 3] = [WeaponClass::Melee, WeaponClass::Ranged, WeaponClass::Magic];
}

/// How to build an [`Arena`].
#[derive(Clone, Debug, PartialEq)]
pub struct ArenaConfig {
    /// Number of combatants (at least 2).
    pub combatants: usize,
    /// Members per group (at least 2); the last group may be smaller.
    pub group: usize,
    /// Classes to cycle through, one per combatant in order.
    pub mix: Vec<WeaponClass>,
    /// Seed of the context's RNG.
    pub seed: u64,
    /// Record a trace (off by default: the arena measures the engine).
    pub trace: bool,
}

impl Default for ArenaConfig {
    fn default() -> Self {
        Self {
            combatants: 1_000,
            group: 4,
            mix: WeaponClass::ALL.to_vec(),
            seed: 1,
            trace: false,
        }
    }
}

/// A configuration the arena cannot build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArenaError(pub String);

impl std::fmt::Display for ArenaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "arena: {}", self.0)
    }
}

impl std::error::Error for ArenaError {}

/// A running crowd fight: the world, the context and the combat runtime.
pub struct Arena {
    /// The ECS world holding the combatants.
    pub world: World,
    /// The context.
    pub gas: Gas,
    /// The installed combat layer (its counter is the attack count).
    pub runtime: Arc<CombatRuntime>,
    /// The combatants, in spawn order.
    pub entities: Vec<Entity>,
}

/// The arena's one piece of content: fighters that never fall.
const ENDURANCE: &str = r#"(effects: [
    (name: "GE_Arena_Endurance", duration: Infinite,
     modifiers: [(attribute: "MaxHealth", op: Mult, magnitude: Constant(1000000))]),
])"#;

/// Groups sit this far apart (cm), far outside any attack range.
const GROUP_SPACING_CM: f64 = 5_000.0;

/// Engagements between two deliveries of the events they queue. Nothing
/// else is due at the spawning instant, so each delivery hands out just
/// those events, in the order the first step would have; few enough that
/// they never outgrow the stores' steady room (the timers' payload slots
/// double at a power of two, and a million fighters' wake-ups sit just
/// under one).
const ENGAGE_BATCH: usize = 1024;

impl Arena {
    /// Spawns the combatants with the shipped catalog and has each engage
    /// its target (the engage events are handled before this returns, and
    /// the events the engagements queue are delivered every 1 024
    /// engagements by advancing the clock by zero; what the last ones
    /// queue waits for the first step).
    pub fn new(config: ArenaConfig) -> Result<Self, ArenaError> {
        Self::with_progress(config, |_| {})
    }

    /// [`Arena::new`], calling `progress` with the number spawned so far
    /// every 100 000 combatants.
    pub fn with_progress(
        config: ArenaConfig,
        mut progress: impl FnMut(usize),
    ) -> Result<Self, ArenaError> {
        if config.combatants < 2 || config.group < 2 || config.mix.is_empty() {
            return Err(ArenaError(
                "needs at least 2 combatants, groups of at least 2 and a non-empty mix".into(),
            ));
        }
        let mut builder = combat::default_catalog_builder();
        builder.add_source("arena.ron", ENDURANCE);
        let catalog = Arc::new(builder.build().map_err(|e| ArenaError(e.to_string()))?);
        let mut gas = Gas::with_seed(catalog.clone(), config.seed);
        if !config.trace {
            gas.trace_mut().set_filter(crate::TraceFilter::NONE);
        }
        let runtime = combat::install(&mut gas).map_err(|e| ArenaError(e.to_string()))?;
        let loadouts = Loadouts::new(&catalog, runtime.defs())?;
        let mut world = World::new();
        // One allocation of exactly the fighters' room: left to grow by
        // doubling, the component columns of 50 000 fighters would hold
        // room for 65 536 (a third of the columns' memory unused).
        world.reserve::<(AbilitySystem, Combatant, Kinematic)>(
            u32::try_from(config.combatants).unwrap_or(u32::MAX),
        );
        let mut entities = Vec::with_capacity(config.combatants);
        let groups = config.combatants.div_ceil(config.group);
        let side = (groups as f64).sqrt().ceil() as usize;
        for i in 0..config.combatants {
            let group = i / config.group;
            let member = i % config.group;
            let centre = Vec2::new(
                (group % side) as f64 * GROUP_SPACING_CM,
                (group / side) as f64 * GROUP_SPACING_CM,
            );
            let angle = member as f64 * std::f64::consts::TAU / config.group as f64;
            let radius = 350.0 + 50.0 * (i % 7) as f64;
            let at = centre + Vec2::new(angle.cos(), angle.sin()) * radius;
            let fighter = loadouts.fighter(&runtime, config.mix[i % config.mix.len()]);
            let entity = world.spawn((gas.new_ability_system(), fighter, Kinematic::at(at, 250.0)));
            for &ability in &loadouts.abilities {
                gas.grant_ability(&mut world, entity, ability, 1)
                    .map_err(|e| ArenaError(e.to_string()))?;
            }
            combat::prepare(&runtime, &mut world, &mut gas, entity);
            loadouts.endure(&mut world, &mut gas, entity)?;
            entities.push(entity);
            if (i + 1) % 100_000 == 0 {
                progress(i + 1);
            }
        }
        // Each fighter walks up to its target, then engages. The events are
        // handled here, one by one, rather than queued for the first step:
        // queued, a million of them would grow the queued-event store and
        // the timer wheel's bucket for this instant to a million entries
        // each, memory the fight never needs again (about 60 bytes a
        // fighter at its peak). Handled now or dequeued first thing at the
        // first step, they run in the same order at the same instant.
        // The engagements queue events of their own (a first hit sends
        // both fighters `Combat.Event.EnterCombat`), and for the same
        // reason those are delivered as they accumulate, by advancing the
        // clock by zero after each batch, as a server's tick would: left
        // for the first step, a million fighters' would set the resident
        // peak of the whole fight (see `ENGAGE_BATCH`).
        let tags = runtime.tags();
        let attack = GameplayEvent::new(tags[native::TRIGGER_QUEUED_INTERACT])
            .payload(tags[native::TRIGGER_ENGAGE]);
        for (i, &attacker) in entities.iter().enumerate() {
            let start = i - i % config.group;
            let len = config.group.min(config.combatants - start);
            let target = entities[start + (i - start + 1) % len];
            if target != attacker {
                gas.handle_event(&mut world, attacker, attack.target(target));
            }
            if (i + 1) % ENGAGE_BATCH == 0 {
                let now = gas.now();
                gas.advance_to(&mut world, now);
            }
        }
        Ok(Self {
            world,
            gas,
            runtime,
            entities,
        })
    }

    /// Advances the clock by `step` (at least a microsecond), stopping at
    /// `end`.
    pub fn step(&mut self, step: SimDuration, end: SimTime) {
        let step = step.max(SimDuration::from_micros(1));
        let to = (self.gas.now() + step).min(end);
        self.gas.advance_to(&mut self.world, to);
    }

    /// Runs `duration` more simulated time in frames of `step` (at least a
    /// microsecond).
    pub fn run_for(&mut self, duration: SimDuration, step: SimDuration) {
        let end = self.gas.now() + duration;
        while self.gas.now() < end {
            self.step(step, end);
        }
    }

    /// Attacks resolved so far (swings and casts, hit or miss).
    pub fn attacks_resolved(&self) -> u64 {
        self.runtime.attacks_resolved()
    }

    /// Combatants that currently have an attack target.
    pub fn engaged(&self) -> usize {
        self.entities
            .iter()
            .filter(|&&e| {
                self.world
                    .get::<&Combatant>(e)
                    .is_ok_and(|c| c.targeting.target.is_some())
            })
            .count()
    }
}

/// The shipped content the arena's fighters use, resolved once.
struct Loadouts {
    abilities: Vec<crate::AbilityId>,
    endurance: crate::EffectId,
    health: crate::AttributeId,
    max_health: crate::AttributeId,
    scimitar: combat::ItemId,
    bow: combat::ItemId,
    arrow: combat::ItemId,
    air_rune: combat::ItemId,
    mind_rune: combat::ItemId,
    strike: combat::SpellId,
}

impl Loadouts {
    fn new(catalog: &Catalog, combat: &CombatDefs) -> Result<Self, ArenaError> {
        let missing = |what: &str| ArenaError(format!("the catalog has no {what}"));
        let item = |name: &str| combat.item_named(name).ok_or_else(|| missing(name));
        let abilities = [
            "GA_QueuedInteract",
            "GA_AutoAttack",
            "GA_Death",
            "GA_Disengage",
        ]
        .iter()
        .map(|name| catalog.abilities().get(name).ok_or_else(|| missing(name)))
        .collect::<Result<_, _>>()?;
        let attribute = |name: &str| catalog.attributes().get(name).ok_or_else(|| missing(name));
        Ok(Self {
            abilities,
            endurance: catalog
                .effects()
                .get("GE_Arena_Endurance")
                .ok_or_else(|| missing("GE_Arena_Endurance"))?,
            health: attribute("Health")?,
            max_health: attribute("MaxHealth")?,
            scimitar: item("Bronze Scimitar")?,
            bow: item("Oak Shortbow")?,
            arrow: item("Bronze Arrow")?,
            air_rune: item("Air Rune")?,
            mind_rune: item("Mind Rune")?,
            strike: combat
                .spell_named("Wind Strike")
                .ok_or_else(|| missing("Wind Strike"))?,
        })
    }

    /// Applies the endurance effect and fills health to the new maximum.
    fn endure(&self, world: &mut World, gas: &mut Gas, entity: Entity) -> Result<(), ArenaError> {
        let error = |e: &dyn std::fmt::Display| ArenaError(format!("endurance: {e}"));
        gas.apply_effect(world, entity, crate::EffectSpec::new(self.endurance))
            .map_err(|e| error(&e))?;
        let max = world
            .get::<&crate::AbilitySystem>(entity)
            .map_err(|e| error(&e))?
            .current(self.max_health);
        gas.set_base_attribute(world, entity, self.health, max)
            .map_err(|e| error(&e))
    }

    fn fighter(&self, runtime: &CombatRuntime, class: WeaponClass) -> Combatant {
        let tags = runtime.tags();
        let weapon_slot = tags[native::ITEM_SLOT_WEAPON];
        let defs = runtime.defs();
        let mut fighter = combat::new_combatant(defs, defs.default_kind());
        fighter.skills = Skills::all_at(1);
        fighter.skills.set_level(Skill::Hitpoints, 99);
        match class {
            WeaponClass::Melee => {
                fighter.equipment.put(weapon_slot, self.scimitar, 1);
            }
            WeaponClass::Ranged => {
                fighter.equipment.put(weapon_slot, self.bow, 1);
                let ammo_slot = tags[native::ITEM_SLOT_AMMO];
                fighter.equipment.put(ammo_slot, self.arrow, 1_000_000);
            }
            WeaponClass::Magic => {
                fighter.inventory.add(self.air_rune, 1_000_000);
                fighter.inventory.add(self.mind_rune, 1_000_000);
                fighter.spellbook.autocast = Some(self.strike);
            }
        }
        fighter
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The events the engagements queue (a first hit's
    /// `Combat.Event.EnterCombat`, to both fighters) are handed out batch
    /// by batch while the arena spawns: what is still queued when it
    /// starts comes from the last, partial batch alone (some 1 400
    /// events at this size when they were all left for the first step).
    #[test]
    fn spawning_delivers_the_engagements_events_batch_by_batch() {
        let partial = 100;
        let arena = Arena::new(ArenaConfig {
            combatants: 3 * ENGAGE_BATCH + partial,
            ..ArenaConfig::default()
        })
        .unwrap();
        let queued = arena.gas.queued_events().len();
        assert!(queued > 0, "the last batch's first hits queue events");
        assert!(
            queued <= 2 * partial,
            "{queued} events queued after the last batch of {partial}"
        );
    }
}
