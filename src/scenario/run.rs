//! Running a scenario: spawn the fighters, apply each input at its exact
//! instant, step the clock in frames.

use std::sync::Arc;

use hecs::{Entity, World};

use super::compile::{Action, CombatantSpec, Scenario};
use super::fit::ScenarioError;
use crate::abilities::{ClientId, GameplayEvent, NetOwner};
use crate::catalog::Catalog;
use crate::combat::{self, native, CombatComponents, CombatRuntime, Kinematic, Profile};
use crate::effects::EffectSpec;
use crate::gas::Gas;
use crate::snapshot::{Snapshot, SnapshotError};
use crate::time::{SimDuration, SimTime};
use crate::trace::Name;

/// The abilities every scenario fighter is granted.
pub const SCENARIO_ABILITIES: &[&str] = &[
    "GA_QueuedInteract",
    "GA_AutoAttack",
    "GA_Disengage",
    "GA_QueueWeave",
    "GA_CastSpell",
    "GA_Death",
    "GA_SetStyle",
    "GA_AutocastSet",
    "GA_Eat",
    "GA_Haste",
    "GA_Heal",
];

/// A scenario in progress.
///
/// Inputs take effect at their own instants whatever the frame step: the
/// clock is advanced to each input's time, the input applied and its events
/// handled, then the frame continues. So running with any step (or in one
/// step) gives the same trace.
pub struct ScenarioRun {
    /// The world.
    pub world: World,
    /// The context.
    pub gas: Gas,
    /// The combat runtime.
    pub runtime: Arc<CombatRuntime>,
    /// Fighters in scenario order.
    pub fighters: Vec<(String, Entity)>,
    /// Profiles saved by `Save` inputs, with their times.
    pub saves: Vec<(SimTime, String, Profile)>,
    /// What setting the fighters up warned of, each naming its fighter
    /// (one spawned without the death ability, which stays dead at zero
    /// Health).
    pub warnings: Vec<String>,
    scenario: Scenario,
    next_input: usize,
}

/// A [`ScenarioRun`] saved mid-fight: the gaskit state, the position in the
/// timeline and the profiles saved so far.
#[derive(Clone, Debug)]
pub struct ScenarioSnapshot {
    /// The world and context.
    pub state: Snapshot<CombatComponents>,
    next_input: usize,
    saves: Vec<(SimTime, String, Profile)>,
}

impl ScenarioRun {
    /// Sets up `scenario` over `catalog`: a context seeded from the
    /// scenario, the combat layer, and every fighter spawned at time zero.
    /// Its trace keeps every event the scenario's filter lets through (a
    /// scenario's trace is its output; a context's default keeps only the
    /// newest 16 384).
    ///
    /// Refused, with nothing spawned, when the catalog lacks what the combat
    /// layer needs, or the scenario names a fighter it does not list or a
    /// definition the catalog lacks (one built in code, or compiled
    /// against other content).
    pub fn new(catalog: Arc<Catalog>, scenario: Scenario) -> Result<Self, ScenarioError> {
        let mut gas = Gas::with_seed(catalog, scenario.seed);
        gas.trace_mut().set_filter(scenario.trace_filter);
        gas.trace_mut().set_capacity(None);
        let runtime = combat::install(&mut gas)?;
        scenario.check_fits(gas.catalog(), runtime.defs())?;
        let mut run = ScenarioRun {
            world: World::new(),
            gas,
            runtime,
            fighters: Vec::new(),
            saves: Vec::new(),
            warnings: Vec::new(),
            scenario,
            next_input: 0,
        };
        for spec in run.scenario.combatants.clone() {
            let entity = run.spawn(&spec);
            run.fighters.push((spec.name.clone(), entity));
        }
        Ok(run)
    }

    /// Saves the run: a [`ScenarioRun::new`] of the same scenario restored
    /// from it continues exactly as this run does.
    pub fn save(&self) -> ScenarioSnapshot {
        ScenarioSnapshot {
            state: Snapshot::save(&self.world, &self.gas),
            next_input: self.next_input,
            saves: self.saves.clone(),
        }
    }

    /// Puts a saved run back (see [`Snapshot::restore`]).
    pub fn restore(&mut self, saved: &ScenarioSnapshot) -> Result<(), SnapshotError> {
        saved.state.restore(&mut self.world, &mut self.gas)?;
        self.next_input = saved.next_input.min(self.scenario.timeline.len());
        self.saves = saved.saves.clone();
        Ok(())
    }

    /// The scenario.
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// The entity of the fighter called `name`.
    pub fn fighter(&self, name: &str) -> Option<Entity> {
        self.fighters
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, e)| *e)
    }

    fn spawn(&mut self, spec: &CombatantSpec) -> Entity {
        let runtime = self.runtime.clone();
        let tags = runtime.tags();
        let mut fighter = combat::new_combatant(runtime.defs(), spec.kind);
        fighter.skills = spec.skills();
        for &(item, quantity) in &spec.equipment {
            if let Some(slot) = runtime.defs().item(item).and_then(|d| d.slot) {
                fighter.equipment.put(slot, item, quantity);
            }
        }
        for &(item, quantity) in &spec.inventory {
            fighter.inventory.add(item, quantity);
        }
        if let Some(book) = spec.spellbook {
            fighter.spellbook.current = book;
            if !fighter.spellbook.unlocked.contains(&book) {
                fighter.spellbook.unlocked.push(book);
            }
        }
        let entity = self.world.spawn((
            Name(spec.name.clone()),
            self.gas.new_ability_system(),
            fighter,
            Kinematic::at(spec.position, spec.speed),
        ));
        if let Some(client) = spec.owner {
            let _ = self.world.insert_one(entity, NetOwner(ClientId(client)));
        }
        for &ability in &spec.abilities {
            let _ = self.gas.grant_ability(&mut self.world, entity, ability, 1);
        }
        for warning in combat::prepare(&self.runtime, &mut self.world, &mut self.gas, entity) {
            self.warnings
                .push(format!("fighter `{}`: {warning}", spec.name));
        }
        if spec.style != combat::Style::Aggressive {
            let event =
                GameplayEvent::new(tags[native::TRIGGER_SET_STYLE]).payload(spec.style.tag(tags));
            self.gas.handle_event(&mut self.world, entity, event);
        }
        if spec.autocast.is_some() {
            let _ = combat::set_autocast(
                &self.runtime,
                &mut self.world,
                &mut self.gas,
                entity,
                spec.autocast,
            );
        }
        for &(attribute, value) in &spec.attributes {
            // Fighters use no derived profile and values are checked finite
            // at compile: nothing here can be refused.
            let _ = self
                .gas
                .set_base_attribute(&mut self.world, entity, attribute, value);
        }
        entity
    }

    /// Advances to `to`, applying every input due on the way at its instant.
    pub fn advance_to(&mut self, to: SimTime) {
        while let Some((at, action)) = self.scenario.timeline.get(self.next_input).cloned() {
            if at > to {
                break;
            }
            self.reach(at);
            self.apply(action);
            self.next_input += 1;
            // Handle what the input queued now, so inputs at one instant
            // take effect in file order.
            self.reach(self.gas.now());
        }
        self.reach(to);
    }

    /// Advances until the clock has reached `at` with all of its work
    /// done: a call the context's work budgets stop part way is carried
    /// on, so an input never lands before its instant. (Each call moves
    /// the clock or finishes the instant, so this ends.)
    fn reach(&mut self, at: SimTime) {
        while self.gas.advance_to(&mut self.world, at) != crate::gas::Advance::Reached {}
    }

    /// Runs to the scenario's end in frames of `step` (the scenario's step
    /// if `None`).
    pub fn run(&mut self, step: Option<SimDuration>) {
        let step = step
            .unwrap_or(self.scenario.step)
            .max(SimDuration::from_micros(1));
        let end = SimTime::ZERO + self.scenario.duration;
        let mut now = self.gas.now();
        // The inputs due now first, so a scenario of no length runs its
        // inputs at 0 too.
        self.advance_to(now);
        while now < end {
            now = (now + step).min(end);
            self.advance_to(now);
        }
    }

    fn event(&mut self, who: usize, event: GameplayEvent) {
        let (_, entity) = self.fighters[who];
        self.gas.send_event(entity, event);
    }

    fn apply(&mut self, action: Action) {
        let catalog = self.gas.catalog_arc().clone();
        let runtime = self.runtime.clone();
        let tags = runtime.tags();
        let entity = |run: &Self, who: usize| run.fighters[who].1;
        match action {
            Action::Engage(a, b) => {
                let target = entity(self, b);
                self.event(
                    a,
                    GameplayEvent::new(tags[native::TRIGGER_QUEUED_INTERACT])
                        .target(target)
                        .payload(tags[native::TRIGGER_ENGAGE]),
                );
            }
            Action::Cast(a, b, spell) => {
                let target = entity(self, b);
                let event = GameplayEvent::new(tags[native::TRIGGER_CAST])
                    .target(target)
                    .object(spell.index() as u32);
                self.event(a, event);
            }
            Action::SetStyle(a, style) => self.event(
                a,
                GameplayEvent::new(tags[native::TRIGGER_SET_STYLE]).payload(style),
            ),
            Action::Disengage(a) => {
                self.event(a, GameplayEvent::new(tags[native::TRIGGER_DISENGAGE]))
            }
            Action::Autocast(a, spell) => {
                let mut event = GameplayEvent::new(tags[native::TRIGGER_AUTOCAST_SET]);
                event.object = spell.map(|s| s.index() as u32);
                self.event(a, event);
            }
            Action::Eat(a, item) => {
                self.event(
                    a,
                    GameplayEvent::new(tags[native::TRIGGER_EAT]).object(item.index() as u32),
                );
            }
            Action::Event(a, tag) => self.event(a, GameplayEvent::new(tag)),
            Action::Move(a, to) => {
                let e = entity(self, a);
                // A scenario's moves are checked finite (as it loads, and
                // again as its run starts), so the order is never refused.
                let _ = combat::move_order(&runtime, &mut self.world, &mut self.gas, e, to);
            }
            Action::OpenModal(a, modal) => {
                let e = entity(self, a);
                self.gas.add_loose_tag(&mut self.world, e, modal, false);
            }
            Action::CloseModal(a, modal) => {
                let e = entity(self, a);
                let _ = self.gas.remove_loose_tag(&mut self.world, e, modal);
            }
            Action::Stun(a, seconds) => {
                let e = entity(self, a);
                if let Some(stun) = catalog.effects().get("GE_Stun") {
                    let spec = EffectSpec::new(stun)
                        .with_set_by_caller(tags[native::STATUS_STUNNED], seconds);
                    self.gas.apply_effect_recorded(&mut self.world, e, spec);
                }
            }
            Action::Equip(a, item) => {
                let e = entity(self, a);
                let _ = combat::equip(&self.runtime, &mut self.world, &mut self.gas, e, item);
            }
            Action::Save(a) => {
                let (name, e) = self.fighters[a].clone();
                if let Some(profile) =
                    combat::save_profile(&self.runtime, &mut self.world, &mut self.gas, e)
                {
                    self.saves.push((self.gas.now(), name, profile));
                }
            }
            Action::Despawn(a) => {
                let e = entity(self, a);
                self.gas.despawn(&mut self.world, e);
            }
        }
    }

    /// The trace as text. Fighters keep their names after a despawn.
    pub fn text_trace(&self) -> String {
        crate::trace::render_text(
            self.fighters.as_slice(),
            self.gas.catalog(),
            self.gas.trace().events(),
        )
    }

    /// The trace as JSON lines.
    pub fn jsonl_trace(&self) -> String {
        crate::trace::render_jsonl(
            self.fighters.as_slice(),
            self.gas.catalog(),
            self.gas.trace().events(),
        )
    }
}
