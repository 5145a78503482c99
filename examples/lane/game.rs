//! The lane game, built on gaskit's core alone (no combat layer): a
//! hero holds a lane against two grunts and a shaman.
//!
//! Everything numeric is data (`lane.tags`, `lane.ron`). This file holds
//! what data cannot say, each through one of the core's extension points:
//! the bolt's damage formula (an execution), the channelled Life Drain (a
//! behaviour with per-instance state), the creeps' brains (asking
//! `can_activate` before they act), and what the lane shows a player (an
//! observer of cues, and one of a low-health threshold that writes a game
//! record into the trace). Player and AI act only through gameplay events;
//! the player's come from client 1, which owns the hero.

use std::sync::{Arc, Mutex};

use gaskit::prelude::*;
use gaskit::snapshot::{RollbackComponent, Snapshot, SnapshotError};
use gaskit::trace::GameRecord;
use gaskit::{
    CalculationSetup, Capture, CaptureFrom, ExecutionCalculation, ExecutionCx, Observation,
    Observe, Threshold, TraceFilter, TraceKind,
};
use hecs::{Entity, World};
use serde::{Deserialize, Serialize};

/// The game's tag file.
pub const TAGS: &str = include_str!("lane.tags");
/// The game's content file.
pub const CONTENT: &str = include_str!("lane.ron");

/// The client playing the hero.
pub const PLAYER: ClientId = ClientId(1);

/// The RNG seed the example fight plays with (the bolts' crits are the
/// only rolls: with this seed only the last bolt crits).
pub const SEED: u64 = 14;

/// How often the creeps think.
const THINK_EVERY: SimDuration = SimDuration::from_millis(250);

/// The catalog: the core plus the lane's own files and its one
/// calculation.
pub fn catalog() -> Result<Catalog, LoadErrors> {
    let mut builder = CatalogBuilder::new();
    builder.tags().add_source("examples/lane/lane.tags", TAGS);
    builder.add_source("examples/lane/lane.ron", CONTENT);
    builder.add_execution("BoltDamage", BoltDamage::default());
    builder.build()
}

/// The arcane bolt's damage: 20 + 1.5 × the caster's SpellPower − the
/// target's Armor, never below zero; one bolt in five is critical, for half
/// as much again, and marked `Damage.Critical` (its cue carries the mark).
#[derive(Default)]
pub struct BoltDamage {
    spell_power: Capture,
    armor: Capture,
    damage: Option<AttributeId>,
    critical: Option<Tag>,
}

impl ExecutionCalculation for BoltDamage {
    fn setup(&mut self, setup: &mut CalculationSetup<'_>) {
        // The caster's power as it was when the bolt left the hand; the
        // target's armour as it is when the bolt lands.
        self.spell_power = setup.capture("SpellPower", CaptureFrom::Source, false);
        self.armor = setup.capture("Armor", CaptureFrom::Target, true);
        self.damage = setup.attribute("Damage");
        self.critical = setup.tag("Damage.Critical");
    }

    fn execute(&self, cx: &mut ExecutionCx<'_>) {
        let raw = 20.0 + 1.5 * cx.captured(self.spell_power) - cx.captured(self.armor);
        let mut damage = raw.max(0.0);
        if cx.chance(0.2) {
            damage *= 1.5;
            if let Some(critical) = self.critical {
                cx.mark(critical);
            }
        }
        if let Some(attribute) = self.damage {
            cx.output(attribute, ModOp::Flat, damage);
        }
    }
}

/// What a creep does.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Role {
    /// Claws its target whenever it can.
    Grunt,
    /// Claws, and hexes a caster in the middle of a channel.
    Shaman,
}

/// Component: a creep's mind. Part of the rollback state.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Brain {
    /// Grunt or shaman.
    pub role: Role,
    /// Whom it fights.
    pub target: Entity,
}

impl RollbackComponent for Brain {}

/// The ids the game's code uses, resolved once.
struct Ids {
    claw: (AbilityId, Tag),
    hex: (AbilityId, Tag),
    channeling: Tag,
}

impl Ids {
    fn new(catalog: &Catalog) -> Self {
        let tag = |name: &str| catalog.tags().get(name).expect("declared in lane.tags");
        let ability = |name: &str| catalog.abilities().get(name).expect("in lane.ron");
        Ids {
            claw: (ability("GA_Claw"), tag("Ability.Trigger.Claw")),
            hex: (ability("GA_Hex"), tag("Ability.Trigger.Hex")),
            channeling: tag("Status.Channeling"),
        }
    }
}

/// What the lane shows a player besides the trace: one line per gameplay
/// cue (where a client would play a sound or a particle), filled by an
/// observer. Presentation, not game state: a rollback replays cues.
pub type CueFeed = Arc<Mutex<Vec<String>>>;

/// A player order: at a time, cast a spell (by trigger tag) at a target
/// (an index into the lane's roster).
#[derive(Clone, Debug)]
pub struct Order {
    /// When.
    pub at: SimTime,
    /// The trigger tag's name.
    pub spell: &'static str,
    /// Roster index of the target.
    pub target: usize,
}

/// The fight the example plays: poison a grunt to death, bolt the other,
/// start a drain the shaman interrupts with a hex (a bolt while stunned is
/// refused), freeze the shaman, heal, bolt it, and finish the wounded grunt
/// with a drain its death cuts short.
pub fn default_script() -> Vec<Order> {
    let order = |at: f64, spell, target| Order {
        at: SimTime::from_secs_f64(at).expect("a valid time"),
        spell,
        target,
    };
    vec![
        order(0.0, "Ability.Trigger.Venom", GRUNT_A),
        order(1.0, "Ability.Trigger.Venom", GRUNT_A),
        order(2.0, "Ability.Trigger.Venom", GRUNT_A),
        order(2.5, "Ability.Trigger.Bolt", GRUNT_B),
        order(4.5, "Ability.Trigger.Drain", SHAMAN),
        order(6.0, "Ability.Trigger.Bolt", SHAMAN),
        order(7.5, "Ability.Trigger.Frost", SHAMAN),
        order(8.0, "Ability.Trigger.Mend", HERO),
        order(9.0, "Ability.Trigger.Bolt", SHAMAN),
        order(14.5, "Ability.Trigger.Drain", GRUNT_B),
        order(16.0, "Ability.Trigger.Bolt", SHAMAN),
    ]
}

/// Roster indices.
pub const HERO: usize = 0;
/// The first grunt.
pub const GRUNT_A: usize = 1;
/// The second grunt.
pub const GRUNT_B: usize = 2;
/// The shaman.
pub const SHAMAN: usize = 3;

/// A lane in progress.
pub struct Lane {
    /// The world.
    pub world: World,
    /// The gaskit context.
    pub gas: Gas,
    /// Names and entities: hero, grunt-a, grunt-b, shaman.
    pub roster: Vec<(String, Entity)>,
    script: Vec<Order>,
    next_order: usize,
    next_think: SimTime,
    ids: Ids,
    /// The cues played so far.
    pub cues: CueFeed,
}

/// A lane saved mid-fight: the gaskit state with the brains, and where the
/// script and the creeps' thinking stand.
#[derive(Clone, Debug)]
pub struct LaneSave {
    state: Snapshot<Brain>,
    next_order: usize,
    next_think: SimTime,
}

impl Lane {
    /// A fresh lane playing `script`, the RNG seeded with `seed`.
    pub fn new(seed: u64, script: Vec<Order>) -> Result<Lane, String> {
        let catalog = Arc::new(catalog().map_err(|e| e.to_string())?);
        let mut gas = Gas::with_seed(catalog.clone(), seed);
        gas.register_behaviour("Channel", Channel::new(&catalog)?)
            .map_err(|e| e.to_string())?;
        let mut world = World::new();
        let ids = Ids::new(&catalog);
        let profile = |name: &str| catalog.attributes().profile(name).expect("in lane.ron");
        let attribute = |name: &str| catalog.attributes().get(name).expect("in lane.ron");
        let ability = |name: &str| catalog.abilities().get(name).expect("in lane.ron");

        // Intellect 14 and Vitality 10: MaxHealth 200, MaxMana 190, SpellPower 28.
        let hero_stats = [
            (attribute("Intellect"), 14.0),
            (attribute("Vitality"), 10.0),
        ];
        let hero_system = gas
            .new_ability_system_with(profile("Hero"), &hero_stats)
            .map_err(|e| e.to_string())?;
        let hero = world.spawn((Name("hero".into()), NetOwner(PLAYER), hero_system));
        for spell in ["GA_Bolt", "GA_Venom", "GA_Mend", "GA_Frost", "GA_Drain"] {
            gas.grant_ability(&mut world, hero, ability(spell), 1)
                .map_err(|e| e.to_string())?;
        }
        let regen = catalog.effects().get("GE_Mana_Regen").expect("in lane.ron");
        gas.apply_effect(&mut world, hero, EffectSpec::new(regen).with_source(hero))
            .map_err(|e| e.to_string())?;

        let mut roster = vec![("hero".to_owned(), hero)];
        for (name, role, vitality, armor) in [
            ("grunt-a", Role::Grunt, 4.0, 2.0),
            ("grunt-b", Role::Grunt, 6.0, 2.0),
            ("shaman", Role::Shaman, 8.0, 6.0),
        ] {
            let bases = [
                (attribute("Vitality"), vitality),
                (attribute("Armor"), armor),
            ];
            let system = gas
                .new_ability_system_with(profile("Creep"), &bases)
                .map_err(|e| e.to_string())?;
            let creep = world.spawn((Name(name.into()), Brain { role, target: hero }, system));
            gas.grant_ability(&mut world, creep, ability("GA_Claw"), 1)
                .map_err(|e| e.to_string())?;
            if role == Role::Shaman {
                gas.grant_ability(&mut world, creep, ability("GA_Hex"), 1)
                    .map_err(|e| e.to_string())?;
            }
            roster.push((name.to_owned(), creep));
        }
        // Everything but tag presence, which the effects lines already show.
        gas.trace_mut()
            .set_filter(TraceFilter::ALL.without(gaskit::TraceCategory::TAGS));
        let cues = CueFeed::default();
        observe_cues(&mut gas, &cues)?;
        observe_wounds(&mut gas)?;
        Ok(Lane {
            world,
            gas,
            roster,
            script,
            next_order: 0,
            next_think: SimTime::ZERO,
            ids,
            cues,
        })
    }

    /// The entity at roster index `index`.
    pub fn entity(&self, index: usize) -> Entity {
        self.roster[index].1
    }

    /// Advances to `to`. Player orders and the creeps' thinking each happen
    /// at their own instants (orders first), so any frame step gives the
    /// same fight.
    pub fn advance_to(&mut self, to: SimTime) {
        loop {
            let order_at = self.script.get(self.next_order).map(|o| o.at);
            let next = match order_at {
                Some(at) if at <= self.next_think => at,
                _ => self.next_think,
            };
            if next > to {
                break;
            }
            self.gas.advance_to(&mut self.world, next);
            if order_at == Some(next) {
                let order = self.script[self.next_order].clone();
                self.next_order += 1;
                self.obey(&order);
            } else {
                self.think();
                self.next_think = next + THINK_EVERY;
            }
            // Handle what was just sent, before anything else at this instant.
            self.gas.advance_by(&mut self.world, SimDuration::ZERO);
        }
        self.gas.advance_to(&mut self.world, to);
    }

    /// Runs to `end` in frames of `step`.
    pub fn run(&mut self, end: SimTime, step: SimDuration) {
        let step = step.max(SimDuration::from_micros(1));
        while self.gas.now() < end {
            let to = (self.gas.now() + step).min(end);
            self.advance_to(to);
        }
    }

    fn obey(&mut self, order: &Order) {
        let Some(tag) = self.gas.catalog().tags().get(order.spell) else {
            return;
        };
        let target = self.entity(order.target);
        let event = GameplayEvent::new(tag).target(target).from_client(PLAYER);
        self.gas.send_event(self.entity(HERO), event);
    }

    /// Every creep that can act picks its move by asking what it could
    /// do, never by trying and failing: a stunned creep sends nothing.
    fn think(&mut self) {
        let creeps: Vec<(Entity, Brain)> = self
            .world
            .query::<(Entity, &Brain)>()
            .iter()
            .map(|(e, b)| (e, *b))
            .collect();
        let mut creeps = creeps;
        creeps.sort_by_key(|(e, _)| e.id());
        for (creep, brain) in creeps {
            let Some(event) = self.decide(creep, brain) else {
                continue;
            };
            self.gas.send_event(creep, event);
        }
    }

    fn decide(&self, creep: Entity, brain: Brain) -> Option<GameplayEvent> {
        let ids = &self.ids;
        let able = |(ability, trigger): (AbilityId, Tag)| {
            let event = GameplayEvent::new(trigger).target(brain.target);
            let ready = self
                .gas
                .can_activate(&self.world, creep, ability, Some(&event));
            ready.is_ok().then_some(event)
        };
        // A shaman interrupts a channel once it is a second old.
        let channel_left = self
            .gas
            .time_remaining(&self.world, brain.target, ids.channeling);
        let channel_is_old = !channel_left.is_zero() && channel_left <= SimDuration::from_secs(2);
        if brain.role == Role::Shaman && channel_is_old {
            if let Some(hex) = able(ids.hex) {
                return Some(hex);
            }
        }
        able(ids.claw)
    }

    /// Saves the fight (rollback, replays).
    pub fn save(&self) -> LaneSave {
        LaneSave {
            state: Snapshot::save(&self.world, &self.gas),
            next_order: self.next_order,
            next_think: self.next_think,
        }
    }

    /// Puts a saved fight back.
    pub fn restore(&mut self, saved: &LaneSave) -> Result<(), SnapshotError> {
        saved.state.restore(&mut self.world, &mut self.gas)?;
        self.next_order = saved.next_order;
        self.next_think = saved.next_think;
        Ok(())
    }

    /// The trace as text (names from the roster).
    pub fn text_trace(&self) -> String {
        gaskit::render_text(
            self.roster.as_slice(),
            self.gas.catalog(),
            self.gas.trace().events(),
        )
    }

    /// The trace without its steady background: mana changes and the
    /// regeneration ticks behind them.
    pub fn compact_trace(&self) -> String {
        let catalog = self.gas.catalog();
        let mana = catalog.attributes().get("Mana");
        let regen = catalog.effects().get("GE_Mana_Regen");
        let events: Vec<gaskit::TraceEvent> = self
            .gas
            .trace()
            .events()
            .iter()
            .filter(|e| match e.kind {
                gaskit::TraceKind::AttributeChanged { attribute, .. } => Some(attribute) != mana,
                gaskit::TraceKind::EffectExecuted { effect, .. } => Some(effect) != regen,
                _ => true,
            })
            .cloned()
            .collect();
        gaskit::render_text(self.roster.as_slice(), catalog, &events)
    }

    /// `(health, mana)` of a roster entry now.
    pub fn vitals(&self, index: usize) -> (f64, f64) {
        let attributes = self.gas.catalog().attributes();
        let read = |name: &str| {
            let id = attributes.get(name).expect("in lane.ron");
            self.world
                .get::<&AbilitySystem>(self.entity(index))
                .map_or(0.0, |s| s.current(id))
        };
        (read("Health"), read("Mana"))
    }
}

/// Registers the observer that turns gameplay cues into the cue feed.
fn observe_cues(gas: &mut Gas, feed: &CueFeed) -> Result<(), String> {
    let all = gas
        .catalog()
        .tags()
        .get("GameplayCue.Lane")
        .ok_or("lane.tags lacks GameplayCue.Lane")?;
    let feed = feed.clone();
    gas.observe(Observe::cue(all), move |world, gas, seen| {
        let Some(TraceKind::Cue {
            target,
            cue,
            magnitude,
            tags,
            ..
        }) = seen.kind()
        else {
            return;
        };
        let tag_names = gas.catalog().tags();
        let mut line = format!(
            "{:>8.3}  {} on {}",
            gas.now().as_secs_f64(),
            tag_names.name(*cue),
            gaskit::entity_name(world, *target)
        );
        if *magnitude != 0.0 {
            line.push_str(&format!(" ({magnitude})"));
        }
        for tag in tags.iter() {
            line.push_str(&format!(" [{}]", tag_names.name(tag)));
        }
        if let Ok(mut feed) = feed.lock() {
            feed.push(line);
        }
    });
    Ok(())
}

/// Registers the observer that writes `Lane.Record.Wounded` into the
/// trace when anyone's Health falls below a quarter of its MaxHealth.
fn observe_wounds(gas: &mut Gas) -> Result<(), String> {
    let catalog = gas.catalog();
    let attribute = |name: &str| {
        catalog
            .attributes()
            .get(name)
            .ok_or_else(|| format!("lane.ron lacks `{name}`"))
    };
    let (health, max_health) = (attribute("Health")?, attribute("MaxHealth")?);
    let wounded = catalog
        .tags()
        .get("Lane.Record.Wounded")
        .ok_or("lane.tags lacks Lane.Record.Wounded")?;
    let quarter = Threshold::FractionOf {
        attribute: max_health,
        fraction: 0.25,
    };
    gas.observe(Observe::below(health, quarter), move |_world, gas, seen| {
        if let Observation::Event(event) = seen {
            if let TraceKind::AttributeChanged { entity, new, .. } = event.kind {
                gas.record_game(GameRecord::new(wounded, entity).magnitude(new));
            }
        }
    });
    Ok(())
}

/// Life Drain: a channel. Commit, then every half second heal the caster
/// and drain the target, six times. A stun, the caster's death or the
/// target's death cancels it (data: `cancel_on_tags_added`,
/// `cancel_on_target_tags_added`); every end path runs the one teardown,
/// which ends the channelling state and records how many pulses landed.
///
/// The pulse count is the instance's own state ([`ChannelState`]): it
/// lives with the instance, so a rollback mid-channel resumes the count.
pub struct Channel {
    channeling: gaskit::EffectId,
    pulse: gaskit::EffectId,
    heal: gaskit::EffectId,
    drained: Tag,
    every: SimDuration,
    pulses: u32,
}

/// A drain's progress.
#[derive(Copy, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ChannelState {
    /// Pulses landed so far.
    pub pulses: u32,
}

impl Channel {
    fn new(catalog: &Catalog) -> Result<Self, String> {
        let effect = |name: &str| {
            catalog
                .effects()
                .get(name)
                .ok_or_else(|| format!("lane.ron lacks `{name}`"))
        };
        Ok(Channel {
            channeling: effect("GE_Channeling")?,
            pulse: effect("GE_Drain_Pulse")?,
            heal: effect("GE_Drain_Heal")?,
            drained: catalog
                .tags()
                .get("Lane.Record.Drained")
                .ok_or("lane.tags lacks Lane.Record.Drained")?,
            every: SimDuration::from_millis(500),
            pulses: 6,
        })
    }
}

impl AbilityBehaviour for Channel {
    fn activate(&self, cx: &mut AbilityCx<'_>) {
        if cx.commit().is_err() {
            cx.end();
            return;
        }
        let owner = cx.owner;
        let _ = cx.apply_effect(owner, EffectSpec::new(self.channeling).with_source(owner));
        cx.wait_delay(self.every);
    }

    fn wake(&self, cx: &mut AbilityCx<'_>, _reason: WakeReason) {
        let (owner, Some(target)) = (cx.owner, cx.event.target) else {
            cx.end();
            return;
        };
        // Counted before the pulse lands: a pulse that kills the target
        // ends the channel, and the teardown reads the count.
        let mut state: ChannelState = cx.state();
        state.pulses += 1;
        cx.set_state(&state);
        let _ = cx.apply_effect(owner, EffectSpec::new(self.heal).with_source(owner));
        let _ = cx.apply_effect(target, EffectSpec::new(self.pulse).with_source(owner));
        if !cx.is_active() {
            return;
        }
        if state.pulses >= self.pulses {
            cx.end();
        } else {
            cx.wait_delay(self.every);
        }
    }

    fn end(&self, cx: &mut AbilityCx<'_>, _reason: EndReason) {
        let owner = cx.owner;
        let state: ChannelState = cx.state();
        cx.gas.remove_effects_of(cx.world, owner, self.channeling);
        let mut record = GameRecord::new(self.drained, owner).magnitude(f64::from(state.pulses));
        if let Some(target) = cx.event.target {
            record = record.other(target);
        }
        cx.gas.record_game(record);
    }
}
