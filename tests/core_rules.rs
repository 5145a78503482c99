//! The core's effect and ability rules on content that is not combat: a
//! small economy and spell game with gold income, mana, stamina and a
//! life rule. Nothing here uses `gaskit::combat`.

mod support;

use gaskit::prelude::*;
use gaskit::snapshot::Snapshot;
use gaskit::{
    AbilityBehaviour, AbilityCx, ActivationFailure, AttributeError, BlockReason, CueEvent,
    EffectError, Execution, GameplayEvent, RemovalReason, TraceKind,
};
use hecs::{Entity, World};
use slotmap::Key;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

const TAGS: &str = "
Status.Dead
Status.Stunned
Cooldown.Spell.Bolt
SetByCaller.Amount
SetByCaller.Bonus
Action.Trigger.Bolt
Action.Trigger.Hurl
GameplayCue.Slow
";

const CONTENT: &str = r#"(
    attributes: [
        (name: "Gold"),
        (name: "Stamina", base: 10),
        (name: "MaxMana", base: 200, min: 0),
        (name: "Mana", min: 0, max: "MaxMana", clamp_base: true, starts_at: "MaxMana"),
        (name: "Vitality", base: 5),
        (name: "MaxHealth", base: 50, min: 1),
        (name: "Health", min: 0, max: "MaxHealth", clamp_base: true,
         starts_at: "MaxHealth", on_zero: "GE_Dead"),
        (name: "Damage", meta: true, drains: "Health"),
    ],
    derived: [(name: "Hero", rules: [(target: "MaxHealth", base: 20, terms: [("Vitality", 10)])])],
    life: (dead: (any: ["Status.Dead"])),
    effects: [
        (name: "GE_Income", duration: Duration(Constant(3)), period: (seconds: 1.0),
         modifiers: [(attribute: "Gold", op: Flat, magnitude: Constant(10))]),
        (name: "GE_Income_Now", duration: Duration(Constant(3)),
         period: (seconds: 1.0, execute_on_application: true),
         modifiers: [(attribute: "Gold", op: Flat, magnitude: Constant(10))]),
        (name: "GE_Tithe", duration: Duration(Constant(10)), period: (seconds: 1.0),
         modifiers: [(attribute: "Gold", op: Flat, magnitude: Constant(1))],
         stacking: (by: Target, limit: 3)),
        (name: "GE_Salary", duration: Duration(Constant(10)), period: (seconds: 1.0),
         modifiers: [(attribute: "Gold", op: Flat, magnitude: Constant(100))],
         stacking: (by: Target, limit: 1, period: Reset)),
        (name: "GE_Regen", duration: Infinite, period: (seconds: 1.0),
         modifiers: [(attribute: "Mana", op: Flat, magnitude: Constant(5))],
         ongoing_requirements: (none: ["Status.Stunned"])),
        (name: "GE_Might", duration: Duration(Constant(2)),
         modifiers: [(attribute: "Stamina", op: Flat, magnitude: Constant(5))]),
        (name: "GE_Fatigue", duration: Duration(Constant(2)),
         modifiers: [(attribute: "Stamina", op: Flat, magnitude: Constant(-1))],
         stacking: (by: Target, limit: 3, on_expiry: RemoveOneAndRefresh)),
        (name: "GE_Poison", duration: Duration(Constant(10)), period: (seconds: 1.0),
         modifiers: [(attribute: "Damage", op: Flat, magnitude: Constant(20))]),
        (name: "GE_Dead", duration: Infinite, granted_tags: ["Status.Dead"], affects_dead: true),
        (name: "GE_Revive", modifiers: [(attribute: "Damage", op: Flat, magnitude: Constant(-25))],
         affects_dead: true),
        (name: "GE_Stun", duration: Duration(SetByCaller("Status.Stunned")),
         granted_tags: ["Status.Stunned"]),
        (name: "GE_Bolt_Cooldown", duration: Duration(SetByCaller("Cooldown.Spell.Bolt")),
         granted_tags: ["Cooldown.Spell.Bolt"]),
        (name: "GE_Bolt", modifiers: [(attribute: "Damage", op: Flat, magnitude: SetByCaller("SetByCaller.Amount"))]),
        (name: "GE_Bolt_Cost", modifiers: [(attribute: "Mana", op: Flat, magnitude: Constant(-40))]),
    ],
    abilities: [
        (name: "GA_Bolt", trigger: "Action.Trigger.Bolt", cost: "GE_Bolt_Cost",
         cooldown: (effect: "GE_Bolt_Cooldown", seconds: 5),
         behaviour: ApplyEffects([(effect: "GE_Bolt", to: Target, event_magnitude: "SetByCaller.Amount")])),
    ],
)"#;

fn catalog_with(extra: &str) -> Result<Catalog, LoadErrors> {
    let mut builder = CatalogBuilder::new();
    builder.tags().add_source("game.tags", TAGS);
    builder.add_source("game.ron", CONTENT);
    if !extra.is_empty() {
        builder.add_source("extra.ron", extra);
    }
    builder.build()
}

/// Cues seen: when (s), which event, how strong.
type CueLog = Arc<Mutex<Vec<(f64, CueEvent, f64)>>>;

struct Game {
    world: World,
    gas: Gas,
    hero: Entity,
    imp: Entity,
}

impl Game {
    fn new() -> Self {
        Self::over(catalog_with("").unwrap())
    }

    fn over(catalog: Catalog) -> Self {
        let mut world = World::new();
        let mut gas = Gas::new(catalog);
        let hero_profile = gas.catalog().attributes().profile("Hero").unwrap();
        let hero = world.spawn((
            Name("hero".into()),
            gas.new_ability_system_with_profile(hero_profile).unwrap(),
        ));
        let imp = world.spawn((Name("imp".into()), gas.new_ability_system()));
        let bolt = gas.catalog().abilities().get("GA_Bolt").unwrap();
        gas.grant_ability(&mut world, hero, bolt, 1).unwrap();
        Game {
            world,
            gas,
            hero,
            imp,
        }
    }

    /// Every `GameplayCue.Slow` cue from now on: when, which, how strong.
    fn slow_cues(&mut self) -> CueLog {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        self.gas.observe(
            Observe::cue(self.tag("GameplayCue.Slow")),
            move |_world, gas, observed| {
                if let Some(&TraceKind::Cue {
                    event, magnitude, ..
                }) = observed.kind()
                {
                    let at = gas.now().as_secs_f64();
                    log.lock().unwrap().push((at, event, magnitude));
                }
            },
        );
        seen
    }

    /// Grants `ability` to the hero at level 1.
    fn grant(&mut self, ability: &str) -> gaskit::AbilityId {
        let id = self.gas.catalog().abilities().get(ability).unwrap();
        self.gas
            .grant_ability(&mut self.world, self.hero, id, 1)
            .unwrap();
        id
    }

    fn attribute(&self, name: &str) -> AttributeId {
        self.gas.catalog().attributes().get(name).unwrap()
    }

    /// `(base, current)` of an attribute.
    fn read(&self, who: Entity, name: &str) -> (f64, f64) {
        let id = self.attribute(name);
        let system = self.world.get::<&AbilitySystem>(who).unwrap();
        (system.attributes().base(id), system.current(id))
    }

    fn tag(&self, name: &str) -> Tag {
        self.gas.catalog().tags().get(name).unwrap()
    }

    fn spec(&self, effect: &str) -> EffectSpec {
        EffectSpec::new(self.gas.catalog().effects().get(effect).unwrap())
    }

    /// The bolt's cooldown for `seconds`.
    fn bolt_cooldown(&self, seconds: f64) -> EffectSpec {
        self.spec("GE_Bolt_Cooldown")
            .with_set_by_caller(self.tag("Cooldown.Spell.Bolt"), seconds)
    }

    /// A stun for `seconds`.
    fn stun(&self, seconds: f64) -> EffectSpec {
        self.spec("GE_Stun")
            .with_set_by_caller(self.tag("Status.Stunned"), seconds)
    }

    /// Why applying `spec` to `who` fails, as its message.
    fn failure(&mut self, who: Entity, spec: EffectSpec) -> String {
        self.gas
            .apply_effect(&mut self.world, who, spec)
            .unwrap_err()
            .to_string()
    }

    fn apply(&mut self, who: Entity, spec: EffectSpec) -> ApplyOutcome {
        self.gas.apply_effect(&mut self.world, who, spec).unwrap()
    }

    fn at(&mut self, seconds: f64) {
        let to = SimTime::from_secs_f64(seconds).unwrap();
        self.gas.advance_to(&mut self.world, to);
    }

    fn has(&self, who: Entity, tag: &str) -> bool {
        assert!(self.world.get::<&AbilitySystem>(who).is_ok());
        self.gas.has_tag(&self.world, who, self.tag(tag))
    }

    /// This game saved to text and restored into a fresh world and
    /// context, with the text it was saved as. What the restore derives
    /// (indexes of watched effects and lazy ends) must agree with what it
    /// indexes.
    fn through_text(self) -> (Game, String) {
        let text = Snapshot::<()>::save(&self.world, &self.gas)
            .to_ron()
            .unwrap();
        let mut world = World::new();
        let mut gas = Gas::new(self.gas.catalog().clone());
        Snapshot::<()>::from_ron(&text)
            .unwrap()
            .restore(&mut world, &mut gas)
            .unwrap();
        assert_eq!(
            gaskit::invariants::check(&world, &gas),
            Vec::<String>::new()
        );
        (Game { world, gas, ..self }, text)
    }

    fn text(&self) -> String {
        gaskit::render_text(&self.world, self.gas.catalog(), self.gas.trace().events())
    }
}

// ------------------------------------------------------------ periodic

#[test]
fn a_periodic_effect_executes_into_the_base_and_holds_no_modifier() {
    let mut g = Game::new();
    let hero = g.hero;
    let income = g.spec("GE_Income");
    g.apply(hero, income);
    let mut seen = Vec::new();
    for t in [0.0, 0.5, 1.0, 2.0, 2.9, 3.0, 4.0] {
        g.at(t);
        let system = g.world.get::<&AbilitySystem>(hero).unwrap();
        assert_eq!(system.attributes().modifier_count(), 0, "at {t}");
        seen.push(g.read(hero, "Gold"));
    }
    // base = current at every instant; the tick due at expiry still runs;
    // the expiry itself changes nothing.
    assert_eq!(
        seen,
        [
            (0.0, 0.0),
            (0.0, 0.0),
            (10.0, 10.0),
            (20.0, 20.0),
            (20.0, 20.0),
            (30.0, 30.0),
            (30.0, 30.0)
        ]
    );
    let expired = g
        .gas
        .trace()
        .events()
        .iter()
        .position(|e| {
            matches!(
                e.kind,
                TraceKind::EffectRemoved {
                    reason: RemovalReason::Expired,
                    ..
                }
            )
        })
        .expect("it expired");
    assert!(
        !g.gas.trace().events()[expired..]
            .iter()
            .any(|e| matches!(e.kind, TraceKind::AttributeChanged { .. })),
        "no value changes at or after the expiry:\n{}",
        g.text()
    );
}

#[test]
fn execute_on_application_adds_one_tick_at_the_start() {
    let mut g = Game::new();
    let hero = g.hero;
    let income = g.spec("GE_Income_Now");
    g.apply(hero, income);
    assert_eq!(g.read(hero, "Gold"), (10.0, 10.0));
    g.at(3.0);
    assert_eq!(g.read(hero, "Gold"), (40.0, 40.0));
}

#[test]
fn stacked_periodic_effects_tick_once_per_period_with_every_stack() {
    let mut g = Game::new();
    let hero = g.hero;
    for _ in 0..4 {
        let tithe = g.spec("GE_Tithe");
        g.apply(hero, tithe);
    }
    g.at(1.0);
    assert_eq!(g.read(hero, "Gold"), (3.0, 3.0), "limit 3: 3 per tick");
    g.at(2.0);
    assert_eq!(g.read(hero, "Gold"), (6.0, 6.0));
}

#[test]
fn a_reapplication_with_period_reset_restarts_the_phase() {
    let mut g = Game::new();
    let hero = g.hero;
    let salary = g.spec("GE_Salary");
    g.apply(hero, salary.clone());
    g.at(1.5);
    assert_eq!(g.read(hero, "Gold").0, 100.0);
    g.apply(hero, salary);
    g.at(2.4);
    assert_eq!(g.read(hero, "Gold").0, 100.0, "no tick at 2.0 any more");
    g.at(2.5);
    assert_eq!(g.read(hero, "Gold").0, 200.0, "one period after the reset");
}

#[test]
fn a_reset_period_that_executes_on_application_executes_again_on_restacking() {
    // Unreal's reset stack runs its first tick again; a kept phase does not.
    let extra = r#"(effects: [
        (name: "GE_Wage_Now", duration: Duration(Constant(10)),
         period: (seconds: 1.0, execute_on_application: true),
         modifiers: [(attribute: "Gold", op: Flat, magnitude: Constant(1))],
         stacking: (by: Target, limit: 3, period: Reset)),
        (name: "GE_Wage_Kept", duration: Duration(Constant(10)),
         period: (seconds: 1.0, execute_on_application: true),
         modifiers: [(attribute: "Gold", op: Flat, magnitude: Constant(1))],
         stacking: (by: Target, limit: 3)),
    ])"#;
    let mut g = Game::over(catalog_with(extra).unwrap());
    let (hero, imp) = (g.hero, g.imp);
    g.apply(hero, g.spec("GE_Wage_Now"));
    g.apply(imp, g.spec("GE_Wage_Kept"));
    assert_eq!(g.read(hero, "Gold").0, 1.0, "the first tick, at once");
    assert_eq!(g.read(imp, "Gold").0, 1.0);
    g.at(0.5);
    let restacked = g.apply(hero, g.spec("GE_Wage_Now"));
    assert!(matches!(restacked, ApplyOutcome::Stacked { stacks: 2, .. }));
    g.apply(imp, g.spec("GE_Wage_Kept"));
    assert_eq!(
        g.read(hero, "Gold").0,
        3.0,
        "a tick at once, with both stacks"
    );
    assert_eq!(g.read(imp, "Gold").0, 1.0, "a kept phase waits for 1.0");
    g.at(1.4);
    assert_eq!(g.read(hero, "Gold").0, 3.0, "the reset phase ticks at 1.5");
    assert_eq!(g.read(imp, "Gold").0, 3.0);
    g.at(1.5);
    assert_eq!(g.read(hero, "Gold").0, 5.0);
}

#[test]
fn an_inhibited_periodic_effect_skips_its_ticks_and_resumes() {
    let mut g = Game::new();
    let (hero, imp) = (g.hero, g.imp);
    // Spend 40 first so regeneration has room below MaxMana (200).
    let bolt = GameplayEvent::new(g.tag("Action.Trigger.Bolt"))
        .target(imp)
        .magnitude(1.0);
    assert!(g.gas.handle_event(&mut g.world, hero, bolt).activated());
    assert_eq!(g.read(hero, "Mana"), (160.0, 160.0));
    let regen = g.spec("GE_Regen");
    g.apply(hero, regen);
    g.at(1.0);
    assert_eq!(g.read(hero, "Mana"), (165.0, 165.0));
    let stun = g.stun(2.0);
    g.at(1.5);
    g.apply(hero, stun);
    g.at(3.4);
    assert_eq!(
        g.read(hero, "Mana"),
        (165.0, 165.0),
        "ticks at 2 and 3 skipped"
    );
    g.at(4.0);
    assert_eq!(g.read(hero, "Mana"), (170.0, 170.0), "resumed");
}

#[test]
fn a_duration_effect_holds_its_modifier_until_it_ends() {
    let mut g = Game::new();
    let hero = g.hero;
    let might = g.spec("GE_Might");
    g.apply(hero, might);
    assert_eq!(g.read(hero, "Stamina"), (10.0, 15.0));
    g.at(2.0);
    assert_eq!(g.read(hero, "Stamina"), (10.0, 10.0));
}

/// A save lists entities by id, not in the order the world happens to
/// store them: two worlds holding the same state save the same text even
/// when one keeps its entities in another order (here the hero moved to
/// an archetype of its own by a component the save does not keep).
#[test]
fn a_save_lists_entities_by_id_whatever_order_the_world_keeps() {
    struct Banner;
    let plain = Game::new();
    let mut moved = Game::new();
    moved.world.insert_one(moved.hero, Banner).unwrap();
    let order: Vec<Entity> = moved.world.iter().map(|e| e.entity()).collect();
    assert_eq!(
        order,
        [moved.imp, moved.hero],
        "the world now keeps the imp first"
    );
    assert!(moved.hero.id() < moved.imp.id());
    assert_eq!(
        Snapshot::<()>::save(&moved.world, &moved.gas)
            .to_ron()
            .unwrap(),
        Snapshot::<()>::save(&plain.world, &plain.gas)
            .to_ron()
            .unwrap()
    );
}

/// A host keeps its first effects inline and moves them to a block of its
/// own when it holds more. Rolled back in place (the same world and
/// context) from holding six effects to the one it held when saved, it
/// saves exactly as it did, its invariants hold, and it hands out the
/// same next key as a copy restored into a fresh world: where its slots
/// lie is not state.
#[test]
fn a_host_rolled_back_from_many_effects_to_one_is_the_host_it_saved() {
    let mut g = Game::new();
    let hero = g.hero;
    g.apply(hero, g.spec("GE_Might"));
    let saved = Snapshot::<()>::save(&g.world, &g.gas);
    let text = saved.to_ron().unwrap();
    for effect in [
        "GE_Income",
        "GE_Tithe",
        "GE_Regen",
        "GE_Fatigue",
        "GE_Salary",
    ] {
        g.apply(hero, g.spec(effect));
    }
    g.at(0.5);
    let live = Snapshot::<()>::save(&g.world, &g.gas).to_ron().unwrap();
    assert_ne!(live, text, "six effects and half a second later");
    saved.restore(&mut g.world, &mut g.gas).unwrap();
    assert_eq!(
        gaskit::invariants::check(&g.world, &g.gas),
        Vec::<String>::new()
    );
    assert_eq!(
        Snapshot::<()>::save(&g.world, &g.gas).to_ron().unwrap(),
        text
    );
    let mut fresh = Game::new();
    Snapshot::<()>::from_ron(&text)
        .unwrap()
        .restore(&mut fresh.world, &mut fresh.gas)
        .unwrap();
    let next = |g: &mut Game| match g.apply(hero, g.spec("GE_Income")) {
        ApplyOutcome::Added(key) => key,
        other => panic!("{other:?}"),
    };
    assert_eq!(next(&mut g), next(&mut fresh));
    assert_eq!(g.read(hero, "Gold"), fresh.read(hero, "Gold"));
    g.at(2.0);
    fresh.at(2.0);
    assert_eq!(g.read(hero, "Gold"), fresh.read(hero, "Gold"));
    assert_eq!(g.read(hero, "Stamina"), fresh.read(hero, "Stamina"));
}

/// An effect that ends on a timer (it holds a modifier) keeps that timer
/// in its host: a re-application that pushes its end later keeps the
/// timer, which re-arms when it fires early; saved to text with the timer
/// it holds (a lazily ending cooldown beside it holds none) and restored
/// into a fresh world, it ends at the instant the unsaved one does; and a
/// removal cancels it, so the next effect in that slot ends on its own.
#[test]
fn an_effect_ending_on_a_timer_keeps_it_through_a_refresh_a_restore_and_a_removal() {
    let warmth = r#"(effects: [
        (name: "GE_Warmth", duration: Duration(Constant(3)),
         modifiers: [(attribute: "Stamina", op: Flat, magnitude: Constant(2))],
         stacking: (by: Target, limit: 3)),
    ])"#;
    let started = || {
        let mut g = Game::over(catalog_with(warmth).unwrap());
        let hero = g.hero;
        let cooldown = g.bolt_cooldown(60.0);
        g.apply(hero, cooldown);
        g.apply(hero, g.spec("GE_Warmth"));
        g.at(1.0);
        // Two stacks, now ending at 4 s; the timer set for 3 s stays.
        g.apply(hero, g.spec("GE_Warmth"));
        g.at(1.5);
        g
    };
    let unsaved = started();
    let hero = unsaved.hero;
    let (restored, text) = started().through_text();
    assert_eq!(text.matches("expiry_timer:Some(").count(), 1, "{text}");
    assert_eq!(text.matches("expiry_timer:None").count(), 1, "{text}");
    let first_end = ron::to_string(&SimTime::from_secs_f64(3.0).unwrap()).unwrap();
    assert!(
        text.contains(&format!("expiry_timer_at:{first_end}")),
        "{text}"
    );
    for mut g in [unsaved, restored] {
        g.at(3.5);
        assert_eq!(g.read(hero, "Stamina"), (10.0, 14.0), "re-armed at 3 s");
        g.at(4.0);
        assert_eq!(g.read(hero, "Stamina"), (10.0, 10.0), "ended at 4 s");
        let ApplyOutcome::Added(key) = g.apply(hero, g.spec("GE_Warmth")) else {
            panic!("warmth not added");
        };
        assert!(g.gas.remove_effect(&mut g.world, hero, key));
        g.at(5.0);
        let ApplyOutcome::Added(again) = g.apply(hero, g.spec("GE_Warmth")) else {
            panic!("warmth not added again");
        };
        assert_eq!(
            again.data().as_ffi() as u32,
            key.data().as_ffi() as u32,
            "the same slot"
        );
        g.at(7.5);
        assert_eq!(
            gaskit::invariants::check(&g.world, &g.gas),
            Vec::<String>::new(),
            "the host's timers agree with its effects"
        );
        assert_eq!(g.read(hero, "Stamina"), (10.0, 12.0));
        g.at(8.0);
        assert_eq!(g.read(hero, "Stamina"), (10.0, 10.0), "its own end, at 8 s");
        assert!(g.has(hero, "Cooldown.Spell.Bolt"));
    }
}

/// An effect that lasts holds every one of its modifiers, however many it
/// has, at the magnitudes its spec gave (a SetByCaller value for one, and
/// another for the duration): stacked, saved to text and restored into a
/// fresh world, and gone at its end. A periodic one with two modifiers
/// executes both on every tick.
#[test]
fn a_lasting_effect_holds_every_modifier_and_set_by_caller_value_it_was_given() {
    let mut g = Game::over(
        catalog_with(
            r#"(effects: [
            (name: "GE_Feast", duration: Duration(SetByCaller("SetByCaller.Bonus")),
             modifiers: [
                (attribute: "Stamina", op: Flat, magnitude: SetByCaller("SetByCaller.Amount")),
                (attribute: "MaxMana", op: Flat, magnitude: Constant(50)),
                (attribute: "Vitality", op: Flat, magnitude: Constant(1)),
             ],
             stacking: (by: Target, limit: 2)),
            (name: "GE_Wages", duration: Duration(Constant(2)), period: (seconds: 1.0),
             modifiers: [
                (attribute: "Gold", op: Flat, magnitude: SetByCaller("SetByCaller.Amount")),
                (attribute: "Stamina", op: Flat, magnitude: Constant(-1)),
             ]),
        ])"#,
        )
        .unwrap_or_else(|e| panic!("{e}")),
    );
    let (amount, bonus) = (g.tag("SetByCaller.Amount"), g.tag("SetByCaller.Bonus"));
    let (hero, imp) = (g.hero, g.imp);
    let feast = g
        .spec("GE_Feast")
        .with_set_by_caller(amount, 4.0)
        .with_set_by_caller(bonus, 3.0);
    g.apply(hero, feast.clone());
    assert_eq!(g.read(hero, "Stamina"), (10.0, 14.0));
    assert_eq!(g.read(hero, "MaxMana"), (200.0, 250.0));
    assert_eq!(g.read(hero, "Vitality"), (5.0, 6.0));
    g.at(1.0);
    // The second stack doubles each modifier and restarts the 3 s window.
    g.apply(hero, feast);
    assert_eq!(g.read(hero, "Stamina"), (10.0, 18.0));
    assert_eq!(g.read(hero, "MaxMana"), (200.0, 300.0));
    assert_eq!(g.read(hero, "Vitality"), (5.0, 7.0));
    let wages = g.spec("GE_Wages").with_set_by_caller(amount, 30.0);
    g.apply(imp, wages);

    let (mut g, text) = g.through_text();
    assert_eq!(
        Snapshot::<()>::save(&g.world, &g.gas).to_ron().unwrap(),
        text,
        "the restored world saves as it was saved"
    );
    g.at(2.0);
    assert_eq!(
        g.read(imp, "Gold"),
        (30.0, 30.0),
        "one tick of each modifier"
    );
    assert_eq!(g.read(imp, "Stamina"), (9.0, 9.0));
    g.at(3.5);
    assert_eq!(
        g.read(imp, "Gold"),
        (60.0, 60.0),
        "and the second, at the end"
    );
    assert_eq!(g.read(imp, "Stamina"), (8.0, 8.0));
    assert_eq!(g.read(hero, "Stamina"), (10.0, 18.0));
    g.at(4.0);
    assert_eq!(g.read(hero, "Stamina"), (10.0, 10.0));
    assert_eq!(g.read(hero, "MaxMana"), (200.0, 200.0));
    assert_eq!(g.read(hero, "Vitality"), (5.0, 5.0));
}

/// A live capture moves its modifier's magnitude where the effect keeps
/// it, beside another modifier's: with two modifiers the magnitudes sit
/// out of line, and the one that follows its source changes alone.
#[test]
fn a_live_capture_beside_another_modifier_follows_its_source_alone() {
    let mut g = Game::over(
        catalog_with(
            r#"(effects: [(name: "GE_Patron", duration: Infinite, modifiers: [
                (attribute: "MaxMana", op: Flat, magnitude: Constant(10)),
                (attribute: "Stamina", op: Flat,
                 magnitude: Attribute(attribute: "Gold", from: Source, live: true)),
            ])])"#,
        )
        .unwrap_or_else(|e| panic!("{e}")),
    );
    let (hero, imp) = (g.hero, g.imp);
    let gold = g.attribute("Gold");
    g.gas
        .set_base_attribute(&mut g.world, imp, gold, 3.0)
        .unwrap();
    let patron = g.spec("GE_Patron").with_source(imp);
    g.apply(hero, patron);
    assert_eq!(g.read(hero, "Stamina"), (10.0, 13.0));
    assert_eq!(g.read(hero, "MaxMana"), (200.0, 210.0));
    g.gas
        .set_base_attribute(&mut g.world, imp, gold, 8.0)
        .unwrap();
    g.at(1.0);
    assert_eq!(g.read(hero, "Stamina"), (10.0, 18.0), "follows the source");
    assert_eq!(
        g.read(hero, "MaxMana"),
        (200.0, 210.0),
        "the constant stays"
    );
}

#[test]
fn remove_one_and_refresh_sheds_one_stack_per_duration() {
    let mut g = Game::new();
    let hero = g.hero;
    for _ in 0..3 {
        let fatigue = g.spec("GE_Fatigue");
        g.apply(hero, fatigue);
    }
    assert_eq!(g.read(hero, "Stamina").1, 7.0);
    g.at(2.0);
    assert_eq!(g.read(hero, "Stamina").1, 8.0);
    g.at(4.0);
    assert_eq!(g.read(hero, "Stamina").1, 9.0);
    g.at(6.0);
    assert_eq!(g.read(hero, "Stamina"), (10.0, 10.0));
}

#[test]
fn a_tick_due_at_the_expiry_runs_once_and_reaches_the_post_execute_step() {
    let extra = r#"(effects: [
        (name: "GE_Last_Gasp", duration: Duration(Constant(2)), period: (seconds: 1.0),
         modifiers: [(attribute: "Damage", op: Flat, magnitude: Constant(25))]),
        (name: "GE_Dwindle", duration: Duration(Constant(2)), period: (seconds: 1.0),
         modifiers: [(attribute: "Gold", op: Flat, magnitude: Constant(1))],
         stacking: (by: Target, limit: 2, on_expiry: RemoveOneAndRefresh)),
    ])"#;
    let mut g = Game::over(catalog_with(extra).unwrap());
    let (hero, imp) = (g.hero, g.imp);
    let gasp = g.spec("GE_Last_Gasp");
    g.apply(imp, gasp);
    g.at(2.0);
    assert_eq!(g.read(imp, "Health").1, 0.0);
    assert!(
        g.has(imp, "Status.Dead"),
        "the tick at the expiry instant brought Health to zero, and on_zero ran:\n{}",
        g.text()
    );
    // A stack shed at a tick's instant: the tick runs once, with both stacks.
    for _ in 0..2 {
        let dwindle = g.spec("GE_Dwindle");
        g.apply(hero, dwindle);
    }
    g.at(3.0);
    assert_eq!(g.read(hero, "Gold").0, 2.0, "a tick with two stacks");
    g.at(4.0);
    assert_eq!(
        g.read(hero, "Gold").0,
        4.0,
        "the tick at the expiry runs once, with both stacks, then one is shed"
    );
    g.at(6.0);
    assert_eq!(g.read(hero, "Gold").0, 6.0, "one stack from here on");
}

/// A tick due at its effect's own expiry follows the ongoing requirements
/// as the owned tags stand when it runs, as a tick after the instant's
/// reconcile would: an effect that ended earlier among the instant's ends
/// counts, one way (a requirement it met fails: the effect stops and the
/// tick passes) or the other (one it blocked is met: the effect starts
/// and ticks).
#[test]
fn a_tick_at_its_expiry_reads_the_requirements_the_instants_ends_left() {
    let extra = r#"(effects: [
        (name: "GE_Daze", duration: Duration(Constant(2)), granted_tags: ["Status.Stunned"]),
        (name: "GE_Dream", duration: Duration(Constant(2)), period: (seconds: 1.0),
         modifiers: [(attribute: "Gold", op: Flat, magnitude: Constant(1))],
         ongoing_requirements: (all: ["Status.Stunned"])),
        (name: "GE_Toil", duration: Duration(Constant(2)), period: (seconds: 1.0),
         modifiers: [(attribute: "Gold", op: Flat, magnitude: Constant(10))],
         ongoing_requirements: (none: ["Status.Stunned"])),
    ])"#;
    let mut g = Game::over(catalog_with(extra).unwrap());
    let hero = g.hero;
    let start = g.read(hero, "Gold").0;
    // The daze first, so its end comes first among the ends at 2 s.
    for name in ["GE_Daze", "GE_Dream", "GE_Toil"] {
        let spec = g.spec(name);
        g.apply(hero, spec);
    }
    g.at(1.0);
    assert_eq!(g.read(hero, "Gold").0, start + 1.0, "a dream, no toil");
    g.at(2.0);
    assert!(!g.has(hero, "Status.Stunned"));
    assert_eq!(
        g.read(hero, "Gold").0,
        start + 11.0,
        "awake at 2 s: no last dream, and the toil's last tick runs:\n{}",
        g.text()
    );
    // Each follows its requirements before its last tick, as the
    // reconcile would have it before a longer effect's tick: the dream
    // stops (its remove cues then, none at the removal), the toil starts.
    let text = g.text();
    let at_two: Vec<&str> = text
        .lines()
        .filter(|l| l.trim_start().starts_with("2.000"))
        .map(|l| l.split("hero").nth(1).unwrap_or_default().trim())
        .collect();
    assert_eq!(
        at_two,
        [
            "tag- Status.Stunned",
            "effect- GE_Daze expired",
            "inhibited GE_Dream",
            "effect- GE_Dream expired",
            "resumed GE_Toil",
            "Gold 1 -> 11",
            "execute GE_Toil",
            "effect- GE_Toil expired",
        ],
        "{text}"
    );
}

/// A lasting effect keeps its level and stack count in sixteen bits: one
/// applied above `MAX_EFFECT_LEVEL` is refused with an error naming it,
/// changing nothing, while one at it applies and saves its level; an
/// instant effect, which keeps nothing, takes any level; a stacking limit
/// above `MAX_STACKS` is a load error.
#[test]
fn levels_and_stack_limits_past_sixteen_bits_are_refused() {
    let mut g = Game::new();
    let hero = g.hero;
    let before = g.read(hero, "Stamina");
    let too_high = g.spec("GE_Might").with_level(gaskit::MAX_EFFECT_LEVEL + 1);
    let error = g
        .gas
        .apply_effect(&mut g.world, hero, too_high)
        .unwrap_err();
    assert!(
        matches!(error, EffectError::LevelTooHigh { level, .. } if level == 65_536),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        "effect `GE_Might` applied at level 65536: a lasting effect's level is at most 65535"
    );
    assert_eq!(g.read(hero, "Stamina"), before, "nothing changed");
    let highest = g.spec("GE_Might").with_level(gaskit::MAX_EFFECT_LEVEL);
    g.apply(hero, highest);
    assert_eq!(g.read(hero, "Stamina").1, before.1 + 5.0);
    let text = Snapshot::<()>::save(&g.world, &g.gas).to_ron().unwrap();
    assert!(text.contains("level:65535"), "{text}");
    let revive = g.spec("GE_Revive").with_level(1_000_000);
    assert!(g.gas.apply_effect(&mut g.world, hero, revive).is_ok());

    let heap = r#"(effects: [(name: "GE_Heap", duration: Infinite,
        stacking: (by: Target, limit: 70000))])"#;
    let errors = catalog_with(heap).unwrap_err().to_string();
    assert!(
        errors.contains("stack limit 70000 is above the highest, 65535"),
        "{errors}"
    );
}

// ------------------------------------------------------------ life

#[test]
fn attributes_start_at_another_attribute_after_the_derived_rules() {
    let g = Game::new();
    assert_eq!(g.read(g.hero, "MaxHealth").1, 70.0, "20 + 10 x Vitality 5");
    assert_eq!(
        g.read(g.hero, "Health"),
        (70.0, 70.0),
        "starts at MaxHealth"
    );
    assert_eq!(g.read(g.imp, "Health"), (50.0, 50.0), "no profile: base 50");
    assert_eq!(g.read(g.imp, "Mana"), (200.0, 200.0));
}

#[test]
fn reaching_zero_applies_the_on_zero_effect_and_the_life_rule_takes_over() {
    let mut g = Game::new();
    let imp = g.imp;
    let zeroes = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = zeroes.clone();
    g.gas.add_hook(
        move |_: &mut World, gas: &mut Gas, target: Entity, execution: &Execution| {
            let names: Vec<String> = execution
                .reached_zero
                .iter()
                .map(|a| gas.catalog().attributes().name(*a).to_owned())
                .collect();
            if !names.is_empty() {
                seen.lock().unwrap().push((target, names));
            }
        },
    );
    let poison = g.spec("GE_Poison");
    g.apply(imp, poison);
    g.at(2.0);
    assert_eq!(g.read(imp, "Health").1, 10.0);
    assert!(!g.has(imp, "Status.Dead"));
    g.at(3.0);
    assert_eq!(g.read(imp, "Health").1, 0.0);
    assert!(g.has(imp, "Status.Dead"), "GE_Dead applied at zero");
    assert_eq!(*zeroes.lock().unwrap(), [(imp, vec!["Health".to_owned()])]);

    // The corpse: the poison stays but no longer ticks, nothing new lands.
    let executions_before = poison_ticks(&g);
    g.at(6.0);
    assert_eq!(poison_ticks(&g), executions_before, "paused on the dead");
    let might = g.spec("GE_Might");
    assert_eq!(
        g.apply(imp, might),
        ApplyOutcome::Blocked(BlockReason::Dead)
    );
    assert!(
        g.text().contains("imp  blocked GE_Might dead"),
        "{}",
        g.text()
    );

    // An effect that affects the dead still lands: a revive.
    let revive = g.spec("GE_Revive");
    assert!(matches!(g.apply(imp, revive), ApplyOutcome::Executed(_)));
    assert_eq!(g.read(imp, "Health").1, 25.0);
}

/// The game with `extra_tags` and `extra` content besides.
fn game_with(extra_tags: &str, extra: &str) -> Game {
    let mut builder = CatalogBuilder::new();
    builder.tags().add_source("game.tags", TAGS);
    builder.tags().add_source("extra.tags", extra_tags);
    builder.add_source("game.ron", CONTENT);
    builder.add_source("extra.ron", extra);
    Game::over(builder.build().unwrap_or_else(|e| panic!("{e}")))
}

/// The game with a `Harm.Fire` tag and `fire_content` besides.
fn game_with_fire(fire_content: &str) -> Game {
    game_with("Harm.Fire\n", fire_content)
}

#[test]
fn can_apply_effect_answers_as_the_application_would_and_changes_nothing() {
    let mut g = game_with_fire(
        r#"(effects: [
            (name: "GE_Fireproof", duration: Infinite, immunity: (any: ["Harm.Fire"])),
            (name: "GE_Burn", asset_tags: ["Harm.Fire"],
             modifiers: [(attribute: "Damage", op: Flat, magnitude: Constant(5))]),
            (name: "GE_Lucky", chance: 0.5, modifiers: [(attribute: "Gold", op: Flat, magnitude: Constant(1))]),
            (name: "GE_Kick", application_requirements: (all: ["Status.Stunned"]),
             modifiers: [(attribute: "Gold", op: Flat, magnitude: Constant(-1))]),
        ])"#,
    );
    let imp = g.imp;
    let ask = |g: &Game, spec: &EffectSpec| g.gas.can_apply_effect(&g.world, imp, spec);
    let burn = g.spec("GE_Burn");
    assert_eq!(ask(&g, &burn), Ok(()));

    // Immunity, by the effect's asset tags or the spec's own tags.
    let fireproof = g.spec("GE_Fireproof");
    g.apply(imp, fireproof);
    let by = g.gas.catalog().effects().get("GE_Fireproof").unwrap();
    assert_eq!(ask(&g, &burn), Err(BlockReason::Immune { by }));
    let fiery_bolt = g
        .spec("GE_Bolt")
        .with_tag(g.tag("Harm.Fire"))
        .with_set_by_caller(g.tag("SetByCaller.Amount"), 3.0);
    assert_eq!(ask(&g, &fiery_bolt), Err(BlockReason::Immune { by }));
    assert_eq!(
        g.apply(imp, burn),
        ApplyOutcome::Blocked(BlockReason::Immune { by })
    );

    // Requirements; a chance is left to the application (nothing rolled).
    assert_eq!(ask(&g, &g.spec("GE_Kick")), Err(BlockReason::Requirements));
    let events = g.gas.trace().next_seq();
    let word = g.gas.rng().get_word_pos();
    assert_eq!(ask(&g, &g.spec("GE_Lucky")), Ok(()));
    assert_eq!(
        (g.gas.trace().next_seq(), g.gas.rng().get_word_pos()),
        (events, word)
    );

    // The life rule: the dead refuse all but what affects the dead.
    let dead = g.spec("GE_Dead");
    g.apply(imp, dead);
    assert_eq!(ask(&g, &g.spec("GE_Might")), Err(BlockReason::Dead));
    assert_eq!(ask(&g, &g.spec("GE_Revive")), Ok(()));

    // Nothing to receive it: refused.
    let rock = g.world.spawn((Name("rock".into()),));
    assert_eq!(
        g.gas.can_apply_effect(&g.world, rock, &g.spec("GE_Might")),
        Err(BlockReason::Requirements)
    );
}

fn poison_ticks(g: &Game) -> usize {
    let poison = g.gas.catalog().effects().get("GE_Poison").unwrap();
    g.gas
        .trace()
        .events()
        .iter()
        .filter(|e| matches!(e.kind, TraceKind::EffectExecuted { effect, .. } if effect == poison))
        .count()
}

#[test]
fn a_life_rule_that_removes_periodic_effects_clears_them_at_death() {
    let content = CONTENT.replace(
        "life: (dead: (any: [\"Status.Dead\"])),",
        "life: (dead: (any: [\"Status.Dead\"]), periodic: Remove),",
    );
    let mut builder = CatalogBuilder::new();
    builder.tags().add_source("game.tags", TAGS);
    builder.add_source("game.ron", &content);
    let mut g = Game::over(builder.build().unwrap());
    let imp = g.imp;
    let poison = g.spec("GE_Poison");
    g.apply(imp, poison);
    g.at(3.0);
    assert!(g.has(imp, "Status.Dead"));
    let system = g.world.get::<&AbilitySystem>(imp).unwrap();
    let effects: Vec<&str> = system
        .effects()
        .effects(g.gas.now())
        .map(|(_, id)| g.gas.catalog().effects().def(id).name.as_str())
        .collect();
    assert_eq!(effects, ["GE_Dead"], "the poison went with the death");
    drop(system);
    assert!(
        g.text().contains("imp  effect- GE_Poison owner died"),
        "{}",
        g.text()
    );
}

#[test]
fn life_and_zero_rules_are_validated_at_load() {
    let twice = catalog_with("(life: (dead: (any: [\"Status.Stunned\"])))").unwrap_err();
    assert!(
        twice
            .to_string()
            .contains("the `life` rule is already set in game.ron"),
        "{twice}"
    );
    let bad_zero = catalog_with(r#"(attributes: [(name: "Focus", on_zero: "GE_Daed")])"#)
        .unwrap_err()
        .to_string();
    assert!(bad_zero.contains("unknown effect `GE_Daed`"), "{bad_zero}");
    assert!(bad_zero.contains("did you mean `GE_Dead`?"), "{bad_zero}");
    let needs_value = catalog_with(r#"(attributes: [(name: "Focus", on_zero: "GE_Bolt")])"#)
        .unwrap_err()
        .to_string();
    assert!(needs_value.contains("nobody gives it"), "{needs_value}");
    let owned = catalog_with(
        r#"(derived: [(name: "Odd", rules: [(target: "Health", terms: [("Vitality", 1)])])])"#,
    )
    .unwrap_err()
    .to_string();
    assert!(owned.contains("has a starting value"), "{owned}");
}

// ------------------------------------------------------------ validate before commit

#[test]
fn a_set_by_caller_value_no_one_gives_is_a_load_error_naming_file_line_effect_and_key() {
    let errors = catalog_with(
        r#"(abilities: [
    (name: "GA_Hurl", trigger: "Action.Trigger.Hurl",
     behaviour: ApplyEffects([(effect: "GE_Bolt", to: Target)])),
])"#,
    )
    .unwrap_err();
    let d = &errors.0[0];
    assert_eq!((d.file.as_str(), d.line), ("extra.ron", 3), "{errors}");
    assert!(d.message.contains("ability `GA_Hurl`"), "{errors}");
    assert!(d.message.contains("effect `GE_Bolt`"), "{errors}");
    assert!(d.message.contains("`SetByCaller.Amount`"), "{errors}");

    let cooldown = catalog_with(
        r#"(abilities: [
    (name: "GA_Hurl", trigger: "Action.Trigger.Hurl", cooldown: (effect: "GE_Bolt_Cooldown"),
     behaviour: ApplyEffects([])),
])"#,
    )
    .unwrap_err()
    .to_string();
    assert!(cooldown.contains("has no `seconds`"), "{cooldown}");
}

#[test]
fn what_only_run_time_knows_refuses_before_the_cooldown_or_cost_is_spent() {
    let mut g = Game::new();
    let (hero, imp) = (g.hero, g.imp);
    let bolt_cooldown = g.tag("Cooldown.Spell.Bolt");
    let trigger = g.tag("Action.Trigger.Bolt");
    let before = gaskit::snapshot::checksum::<()>(&g.world, &g.gas);

    // No magnitude on the event: GE_Bolt cannot be evaluated.
    let outcome = g
        .gas
        .handle_event(&mut g.world, hero, GameplayEvent::new(trigger).target(imp));
    let bolt = g.gas.catalog().effects().get("GE_Bolt").unwrap();
    assert_eq!(
        outcome.first_failure(),
        Some(ActivationFailure::CannotApply(bolt))
    );
    // A magnitude that is not a number makes the event malformed, whoever
    // sends it.
    let nan = GameplayEvent::new(trigger).target(imp).magnitude(f64::NAN);
    let outcome = g.gas.handle_event(&mut g.world, hero, nan);
    assert_eq!(
        outcome.first_failure(),
        Some(ActivationFailure::MalformedEvent)
    );

    assert!(g
        .gas
        .time_remaining(&g.world, hero, bolt_cooldown)
        .is_zero());
    assert_eq!(g.read(hero, "Mana"), (200.0, 200.0), "no cost paid");
    let after = gaskit::snapshot::checksum::<()>(&g.world, &g.gas);
    assert_eq!(before, after, "nothing changed");

    // With the magnitude it goes through, and pays once.
    let good = GameplayEvent::new(trigger).target(imp).magnitude(7.0);
    assert!(g.gas.handle_event(&mut g.world, hero, good).activated());
    assert_eq!(g.read(imp, "Health").1, 43.0);
    assert_eq!(g.read(hero, "Mana").1, 160.0);
    assert_eq!(
        g.gas.time_remaining(&g.world, hero, bolt_cooldown),
        SimDuration::from_secs(5)
    );
}

// ------------------------------------------------------------ names, not numbers

#[test]
fn errors_and_trace_records_name_effects_tags_and_attributes() {
    let mut g = Game::new();
    let imp = g.imp;
    let bolt = g.spec("GE_Bolt");
    let error = g.gas.apply_effect(&mut g.world, imp, bolt).unwrap_err();
    assert!(matches!(error, EffectError::MissingSetByCaller { .. }));
    let text = error.to_string();
    assert_eq!(
        text,
        "effect `GE_Bolt` needs a SetByCaller value under `SetByCaller.Amount` and the spec has none"
    );

    let health = g.attribute("Health");
    let nan = g
        .gas
        .set_base_attribute(&mut g.world, imp, health, f64::NAN)
        .unwrap_err();
    assert_eq!(
        nan.to_string(),
        "attribute `Health` rejects non-finite value NaN"
    );
}

/// Every magnitude of a spec is evaluated before anything changes, in the
/// order the modifiers are declared: the first key missing is the one the
/// error names, a failed application writes nothing (not even the values
/// it could evaluate), and with every key given each modifier gets its own.
#[test]
fn a_spec_s_magnitudes_are_evaluated_in_declaration_order_before_anything_changes() {
    let mut g = Game::over(
        catalog_with(
            r#"(effects: [(name: "GE_Wage", modifiers: [
                (attribute: "Gold", op: Flat, magnitude: SetByCaller("SetByCaller.Amount")),
                (attribute: "Stamina", op: Flat, magnitude: SetByCaller("SetByCaller.Bonus")),
            ])])"#,
        )
        .unwrap_or_else(|e| panic!("{e}")),
    );
    let (amount, bonus) = (g.tag("SetByCaller.Amount"), g.tag("SetByCaller.Bonus"));
    let hero = g.hero;
    let before = gaskit::snapshot::checksum::<()>(&g.world, &g.gas);

    let error = g.failure(hero, g.spec("GE_Wage"));
    assert!(
        error.contains("`SetByCaller.Amount`"),
        "the first modifier's key: {error}"
    );
    let only_first = g.spec("GE_Wage").with_set_by_caller(amount, 7.0);
    let error = g.failure(hero, only_first);
    assert!(
        error.contains("`SetByCaller.Bonus`"),
        "the second modifier's key: {error}"
    );
    // A value that is not finite is refused by name, under a modifier's
    // key or a duration's (the evaluation's quick path takes only finite
    // values).
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let second_bad = g
            .spec("GE_Wage")
            .with_set_by_caller(amount, 7.0)
            .with_set_by_caller(bonus, bad);
        let error = g.failure(hero, second_bad);
        assert!(
            error.contains("`GE_Wage`") && error.contains(&format!("non-finite magnitude {bad}")),
            "{error}"
        );
        let error = g.failure(hero, g.bolt_cooldown(bad));
        assert!(
            error.contains("`GE_Bolt_Cooldown`")
                && error.contains(&format!("non-finite magnitude {bad}")),
            "{error}"
        );
    }
    let after = gaskit::snapshot::checksum::<()>(&g.world, &g.gas);
    assert_eq!(before, after, "a failed application writes nothing");

    let both = g
        .spec("GE_Wage")
        .with_set_by_caller(amount, 7.0)
        .with_set_by_caller(bonus, 2.0);
    assert!(matches!(g.apply(hero, both), ApplyOutcome::Executed(_)));
    assert_eq!(g.read(hero, "Gold"), (7.0, 7.0));
    assert_eq!(g.read(hero, "Stamina"), (12.0, 12.0));
}

#[test]
fn writing_the_base_a_derived_rule_owns_is_an_error_naming_the_profile() {
    let mut g = Game::new();
    let (hero, imp) = (g.hero, g.imp);
    let max_health = g.attribute("MaxHealth");
    let error = g
        .gas
        .set_base_attribute(&mut g.world, hero, max_health, 500.0)
        .unwrap_err();
    assert!(matches!(error, AttributeError::OwnedByRule { .. }));
    let text = error.to_string();
    assert!(
        text.contains("`MaxHealth`") && text.contains("`Hero`"),
        "{text}"
    );
    assert_eq!(g.read(hero, "MaxHealth").1, 70.0, "unchanged");
    // Without the profile nothing owns it.
    assert!(g
        .gas
        .set_base_attribute(&mut g.world, imp, max_health, 80.0)
        .is_ok());
    assert_eq!(g.read(imp, "MaxHealth").1, 80.0);
}

#[test]
fn immunity_and_inhibition_see_through_many_plain_effects_and_survive_a_restore_from_text() {
    let mut g = game_with_fire(
        r#"(effects: [
            (name: "GE_Fireproof", duration: Infinite, immunity: (any: ["Harm.Fire"])),
            (name: "GE_Asbestos", duration: Infinite, immunity: (any: ["Harm.Fire"])),
            (name: "GE_Chill", duration: Duration(Constant(60))),
            (name: "GE_Burn", asset_tags: ["Harm.Fire"],
             modifiers: [(attribute: "Damage", op: Flat, magnitude: Constant(5))]),
            (name: "GE_Spite", duration: Infinite, ongoing_requirements: (all: ["Status.Stunned"]),
             modifiers: [(attribute: "Gold", op: Flat, magnitude: Constant(7))]),
        ])"#,
    );
    let imp = g.imp;
    let effect = |g: &Game, name: &str| g.gas.catalog().effects().get(name).unwrap();
    // Forty plain effects first, so the watched ones sit behind them.
    for _ in 0..40 {
        g.apply(imp, g.spec("GE_Chill"));
    }
    let ApplyOutcome::Added(first_fireproof) = g.apply(imp, g.spec("GE_Fireproof")) else {
        panic!("fireproof not added");
    };
    g.apply(imp, g.spec("GE_Asbestos"));
    g.apply(imp, g.spec("GE_Spite"));
    // The fireproofing goes and comes back into its old slot, ahead of the
    // older asbestos: the immunity named is the first in slot order, as a
    // scan of the host's effects would meet it.
    g.gas.remove_effect(&mut g.world, imp, first_fireproof);
    g.apply(imp, g.spec("GE_Fireproof"));
    let fireproof = effect(&g, "GE_Fireproof");
    assert_eq!(
        g.apply(imp, g.spec("GE_Burn")),
        ApplyOutcome::Blocked(BlockReason::Immune { by: fireproof })
    );
    assert_eq!(g.read(imp, "Gold").1, 0.0, "spite is inhibited");

    // Through the text form into a fresh world and context (the index of
    // watched effects the restore derives is checked there).
    let (mut g, _) = g.through_text();
    assert_eq!(
        g.apply(imp, g.spec("GE_Burn")),
        ApplyOutcome::Blocked(BlockReason::Immune { by: fireproof })
    );
    let stun = g.stun(1.0);
    g.apply(imp, stun);
    assert_eq!(
        g.read(imp, "Gold").1,
        7.0,
        "the stun lifts spite's inhibition"
    );
    g.at(2.0);
    assert_eq!(g.read(imp, "Gold").1, 0.0, "and its end brings it back");
}

// ------------------------------------------------------------ reactions

#[test]
fn an_ongoing_requirement_on_a_parent_tag_follows_a_child_coming_and_going() {
    // `Cooldown.Spell.Bolt` is reactive only through its parent: no rule
    // names the leaf itself.
    let mut g = Game::over(
        catalog_with(
            r#"(effects: [
                (name: "GE_Focus", duration: Infinite,
                 ongoing_requirements: (all: ["Cooldown.Spell"]),
                 modifiers: [(attribute: "Gold", op: Flat, magnitude: Constant(7))]),
            ])"#,
        )
        .unwrap(),
    );
    let imp = g.imp;
    g.apply(imp, g.spec("GE_Focus"));
    assert_eq!(g.read(imp, "Gold").1, 0.0, "inhibited without the parent");
    let cooldown = g.bolt_cooldown(1.0);
    g.apply(imp, cooldown);
    assert_eq!(g.read(imp, "Gold").1, 7.0, "a child of the parent arrived");
    g.at(1.5);
    assert!(!g.has(imp, "Cooldown.Spell.Bolt"));
    assert_eq!(g.read(imp, "Gold").1, 0.0, "the child went");
}

/// A cooldown read as a level comes from the effects granting its tag,
/// parent-aware, longest first; an inhibited one counts for nothing, and
/// the tag owned loosely (no effect behind it) reads as no cooldown.
#[test]
fn time_remaining_reads_the_effects_that_grant_the_tag_not_the_tag() {
    let mut g = Game::over(
        catalog_with(
            r#"(effects: [
                (name: "GE_Ward", duration: Duration(Constant(8)),
                 granted_tags: ["Cooldown.Spell.Bolt"],
                 ongoing_requirements: (none: ["Status.Stunned"])),
            ])"#,
        )
        .unwrap(),
    );
    let imp = g.imp;
    let (bolt, spell) = (g.tag("Cooldown.Spell.Bolt"), g.tag("Cooldown.Spell"));
    let read = |g: &Game, tag| {
        g.gas
            .time_remaining_and_duration(&g.world, imp, tag)
            .map(|(left, total)| (left.as_secs_f64(), total.as_secs_f64()))
    };
    assert_eq!(read(&g, spell), None, "nothing owned");
    g.gas.add_loose_tag(&mut g.world, imp, bolt, false);
    assert!(g.has(imp, "Cooldown.Spell"));
    assert_eq!(read(&g, bolt), None, "owned loosely: no effect to time");

    let cooldown = g.bolt_cooldown(3.0);
    g.apply(imp, cooldown);
    g.apply(imp, g.spec("GE_Ward"));
    assert_eq!(
        read(&g, spell),
        Some((8.0, 8.0)),
        "the longest, parent-aware"
    );
    let stun = g.stun(10.0);
    g.apply(imp, stun);
    assert_eq!(
        read(&g, bolt),
        Some((3.0, 3.0)),
        "the inhibited ward counts for nothing"
    );
    g.at(3.0);
    assert_eq!(
        read(&g, spell),
        None,
        "the cooldown ended, the ward is inhibited"
    );
    assert!(g.has(imp, "Cooldown.Spell.Bolt"), "still owned loosely");
    g.gas.remove_loose_tag(&mut g.world, imp, bolt).unwrap();
    assert_eq!(read(&g, bolt), None);
}

/// A meta attribute is scratch within one execution: the drain takes
/// everything the execution wrote to its base, and at rest its base and
/// current value are zero, whether or not another attribute's bound reads
/// it (then it is recomputed at each write, as any attribute). The
/// invariants check at every step that every current value is what a
/// recompute gives.
#[test]
fn a_meta_attribute_is_scratch_within_an_execution_and_at_rest_after() {
    let mut g = Game::over(
        catalog_with(
            r#"(
            attributes: [
                (name: "Mend", meta: true, drains: "Gold"),
                (name: "Ward", min: 0, max: "Mend"),
            ],
            effects: [
                (name: "GE_Cut", modifiers: [
                    (attribute: "Damage", op: Flat, magnitude: Constant(4)),
                    (attribute: "Damage", op: Flat, magnitude: Constant(2)),
                ]),
                (name: "GE_Mend", modifiers: [(attribute: "Mend", op: Flat, magnitude: Constant(-7))]),
            ])"#,
        )
        .unwrap(),
    );
    let imp = g.imp;
    let at_rest = |g: &Game| {
        assert_eq!(
            gaskit::invariants::check(&g.world, &g.gas),
            Vec::<String>::new()
        );
        (g.read(imp, "Damage"), g.read(imp, "Health").1)
    };
    assert_eq!(at_rest(&g), ((0.0, 0.0), 50.0));
    g.apply(imp, g.spec("GE_Cut"));
    assert_eq!(
        at_rest(&g),
        ((0.0, 0.0), 44.0),
        "both writes drained together"
    );
    g.apply(imp, g.spec("GE_Cut"));
    assert_eq!(at_rest(&g), ((0.0, 0.0), 38.0));
    // `Ward` is bounded by `Mend`: Mend's writes are recomputed as before.
    g.apply(imp, g.spec("GE_Mend"));
    assert_eq!(g.read(imp, "Gold"), (7.0, 7.0));
    assert_eq!(g.read(imp, "Mend"), (0.0, 0.0));
    assert!(gaskit::invariants::check(&g.world, &g.gas).is_empty());
}

// ------------------------------------------------------------ queued events

#[test]
fn a_queued_event_outlives_a_restore_into_a_fresh_context() {
    let mut g = Game::new();
    let (hero, imp) = (g.hero, g.imp);
    let bolt = GameplayEvent::new(g.tag("Action.Trigger.Bolt"))
        .target(imp)
        .magnitude(12.0);
    g.gas.send_event_at(SimTime::from_secs(2), hero, bolt);
    g.at(1.0);
    let text = Snapshot::<()>::save(&g.world, &g.gas).to_ron().unwrap();

    // The uninterrupted run.
    g.at(3.0);
    assert_eq!(g.read(imp, "Health").1, 38.0, "the bolt landed at 2 s");

    // The same event, carried by the saved timer into a fresh context.
    let mut world = World::new();
    let mut gas = Gas::new(g.gas.catalog().clone());
    Snapshot::<()>::from_ron(&text)
        .unwrap()
        .restore(&mut world, &mut gas)
        .unwrap();
    assert_eq!(gas.pending_timers(), 1);
    assert_eq!(
        gaskit::invariants::check(&world, &gas),
        Vec::<String>::new()
    );
    let mut restored = Game { world, gas, ..g };
    restored.at(3.0);
    assert_eq!(restored.read(imp, "Health").1, 38.0);
    assert_eq!(
        Snapshot::<()>::save(&restored.world, &restored.gas).checksum(),
        Snapshot::<()>::save(&g.world, &g.gas).checksum()
    );
}

// ------------------------------------------------------------ prefetching

#[test]
fn prefetching_for_coming_timers_changes_nothing_a_run_produces() {
    // A village of 240 on one clock: income, tithes, fatigue, regeneration,
    // stuns and poison all applied at the same instants, so each of those
    // instants' timer buckets holds hundreds of timers and the loop
    // prefetches before nearly every one it runs.
    let run = |prefetch: gaskit::Prefetch| {
        let mut g = Game::new();
        g.gas.set_prefetch(prefetch);
        g.gas.set_wake_reader(read_villager);
        g.gas.set_reach_reader(reach_neighbour);
        let villagers = g.village(240);
        for pair in villagers.windows(2) {
            g.world.insert_one(pair[1], Neighbour(pair[0])).unwrap();
        }
        for (i, &villager) in villagers.iter().enumerate() {
            for effect in ["GE_Income", "GE_Tithe", "GE_Fatigue", "GE_Regen"] {
                let spec = g.spec(effect);
                g.apply(villager, spec);
            }
            if i % 3 == 0 {
                let stun = g.stun(1.5);
                g.apply(villager, stun);
            }
            if i % 5 == 0 {
                let poison = g.spec("GE_Poison");
                g.apply(villager, poison);
            }
        }
        for step in 1..=120 {
            g.at(f64::from(step) * 0.1);
        }
        let gold: f64 = villagers.iter().map(|&v| g.read(v, "Gold").1).sum();
        let state = gaskit::snapshot::checksum::<()>(&g.world, &g.gas);
        (gold, g.text(), state)
    };
    let (gold, text, state) = run(gaskit::Prefetch::Never);
    // Income pays 3 × 10 and tithes 10 × 1 to every villager, except that
    // the 48 poisoned die at 3 s (three ticks of 20 against 50 health) and
    // their last seven tithes do not tick.
    assert_eq!(gold, 192.0 * 40.0 + 48.0 * 33.0);
    assert_eq!(VILLAGERS_READ.load(Ordering::Relaxed), 0, "never asked");
    assert_eq!(NEIGHBOURS_REACHED.load(Ordering::Relaxed), 0, "never asked");
    let prefetched = run(gaskit::Prefetch::Always);
    assert_eq!(prefetched.0, gold);
    assert!(prefetched.1 == text, "the same trace");
    assert_eq!(prefetched.2, state, "the same final state");
    // The game's reader was asked for the coming villagers, their names
    // with their systems.
    assert!(VILLAGERS_READ.load(Ordering::Relaxed) > 1_000);
    // And for what each coming execution reaches, one stage later.
    assert!(NEIGHBOURS_REACHED.load(Ordering::Relaxed) > 1_000);
}

#[test]
fn prefetching_passes_over_villagers_despawned_while_their_timers_wait() {
    // The prefetch stage reads the coming timers' entities (their records
    // in the world, their systems, their slots) before the handlers run.
    // Villagers despawned with periodic effects still pending leave
    // timers that name no entity any more, through the context or behind
    // its back: the stage must pass over them, and the run must be the
    // same as without prefetching.
    let run = |prefetch: gaskit::Prefetch| {
        let mut g = Game::new();
        g.gas.set_prefetch(prefetch);
        let villagers = g.village(240);
        for &villager in &villagers {
            for effect in ["GE_Income", "GE_Tithe"] {
                let spec = g.spec(effect);
                g.apply(villager, spec);
            }
        }
        g.at(1.5);
        for (i, &villager) in villagers.iter().enumerate() {
            match i % 4 {
                0 => assert!(g.gas.despawn(&mut g.world, villager)),
                1 => g.world.despawn(villager).unwrap(),
                _ => {}
            }
        }
        for step in 16..=120 {
            g.at(f64::from(step) * 0.1);
        }
        let survivors: Vec<Entity> = villagers
            .iter()
            .copied()
            .filter(|&v| g.world.contains(v))
            .collect();
        let gold: f64 = survivors.iter().map(|&v| g.read(v, "Gold").1).sum();
        let state = gaskit::snapshot::checksum::<()>(&g.world, &g.gas);
        (survivors.len(), gold, g.text(), state)
    };
    let (survivors, gold, text, state) = run(gaskit::Prefetch::Never);
    // Half are gone; the rest were paid in full: income 3 × 10 and tithes
    // 10 × 1 by 12 s.
    assert_eq!(survivors, 120);
    assert_eq!(gold, 120.0 * 40.0);
    let prefetched = run(gaskit::Prefetch::Always);
    assert_eq!((prefetched.0, prefetched.1), (survivors, gold));
    assert!(prefetched.2 == text, "the same trace");
    assert_eq!(prefetched.3, state, "the same final state");
}

/// Executions the prefetch stage asked [`reach_neighbour`] about.
static NEIGHBOURS_REACHED: AtomicUsize = AtomicUsize::new(0);

/// A village's reach reader: a villager's periodic effects may touch its
/// neighbour (the villager spawned before it), so the neighbour's system
/// is asked for.
fn reach_neighbour(world: &mut World, entity: Entity) {
    NEIGHBOURS_REACHED.fetch_add(1, Ordering::Relaxed);
    let neighbour = world.query_one_mut::<&Neighbour>(entity).ok().map(|n| n.0);
    if let Some(system) = neighbour.and_then(|n| world.query_one_mut::<&AbilitySystem>(n).ok()) {
        gaskit::prefetch_component(system);
    }
}

/// The villager spawned before this one.
struct Neighbour(Entity);

#[test]
fn the_prefetch_stage_reads_an_expiring_entity_without_the_game_s_wake_reader() {
    // 240 villagers whose bolt cooldown and stun end at the same instant:
    // one bucket of 480 expiries, the loop prefetching before nearly each.
    // An expiry runs no game code, so neither of the game's readers is
    // asked about one; the run is the same as without prefetching.
    let run = |prefetch: gaskit::Prefetch| {
        let mut g = Game::new();
        g.gas.set_prefetch(prefetch);
        g.gas.set_wake_reader(read_for_expiry);
        g.gas.set_reach_reader(|_, _| {
            EXPIRY_READS.fetch_add(1, Ordering::Relaxed);
        });
        let villagers = g.village(240);
        for &villager in &villagers {
            let cooldown = g.bolt_cooldown(2.0);
            g.apply(villager, cooldown);
            let stun = g.stun(2.0);
            g.apply(villager, stun);
        }
        let held = |g: &Game| {
            villagers
                .iter()
                .filter(|&&v| g.has(v, "Cooldown.Spell.Bolt") || g.has(v, "Status.Stunned"))
                .count()
        };
        g.at(1.0);
        let before = held(&g);
        g.at(2.0);
        let after = held(&g);
        let state = gaskit::snapshot::checksum::<()>(&g.world, &g.gas);
        (before, after, g.text(), state)
    };
    let plain = run(gaskit::Prefetch::Never);
    assert_eq!((plain.0, plain.1), (240, 0));
    let prefetched = run(gaskit::Prefetch::Always);
    assert!(prefetched == plain, "the same run");
    assert_eq!(EXPIRY_READS.load(Ordering::Relaxed), 0);
}

/// Times the expiry test's readers were asked.
static EXPIRY_READS: AtomicUsize = AtomicUsize::new(0);

/// A wake reader that counts: only the expiry test sets it.
fn read_for_expiry(world: &mut World, entity: Entity) -> Option<&AbilitySystem> {
    EXPIRY_READS.fetch_add(1, Ordering::Relaxed);
    world.query_one_mut::<&AbilitySystem>(entity).ok()
}

impl Game {
    /// `count` named villagers, each with an ability system.
    fn village(&mut self, count: usize) -> Vec<Entity> {
        (0..count)
            .map(|i| {
                let system = self.gas.new_ability_system();
                self.world.spawn((Name(format!("villager {i}")), system))
            })
            .collect()
    }
}

/// Villagers the prefetch stage read through [`read_villager`].
static VILLAGERS_READ: AtomicUsize = AtomicUsize::new(0);

/// A village's wake reader: a villager's name comes with its system.
fn read_villager(world: &mut World, entity: Entity) -> Option<&AbilitySystem> {
    let (system, name) = world
        .query_one_mut::<(&AbilitySystem, Option<&Name>)>(entity)
        .ok()?;
    if let Some(name) = name {
        gaskit::prefetch_component(name);
        VILLAGERS_READ.fetch_add(1, Ordering::Relaxed);
    }
    Some(system)
}

// ------------------------------------------------------------ unwatched effects

/// The game with its trace recording only `filter` (and what observers
/// ask for).
fn tracing(filter: TraceFilter) -> Game {
    let mut g = Game::new();
    g.gas.trace_mut().set_filter(filter);
    g
}

impl Game {
    /// All one can read of the hero's effects and tags, and the state's
    /// checksum.
    fn effects_seen(&self) -> String {
        let system = self.world.get::<&AbilitySystem>(self.hero).unwrap();
        let bolt = self.tag("Cooldown.Spell.Bolt");
        let now = self.gas.now();
        let effects: Vec<_> = system.effects().effects(now).collect();
        format!(
            "at {}: {effects:?}, count {}, bolt {} {:?}, stunned {}, tags {:?}, checksum {:x}",
            now,
            system.effects().effect_count(now),
            self.gas.has_tag(&self.world, self.hero, bolt),
            self.gas
                .time_remaining_and_duration(&self.world, self.hero, bolt),
            self.gas
                .has_tag(&self.world, self.hero, self.tag("Status.Stunned")),
            system
                .tags(self.gas.catalog().effects(), now)
                .iter()
                .collect::<Vec<_>>(),
            gaskit::snapshot::checksum::<()>(&self.world, &self.gas),
        )
    }
}

/// A cooldown (a tag no rule reacts to and a duration, nothing more)
/// begins and ends by a short path when nothing records or observes
/// effects or tags and nothing waits on the hero: the same instances
/// under the same keys, the same tags, times and checksums as the run
/// whose trace records everything. Stuns (a tag a rule reacts to) take the
/// long path in both runs, between the cooldowns; a cooldown is re-applied
/// at the instant one ends, into the slot it freed.
#[test]
fn a_cooldown_nobody_watches_reaches_every_state_a_traced_one_does() {
    let mut quiet = tracing(TraceFilter::NONE);
    let mut traced = tracing(TraceFilter::ALL);
    type Step = fn(&mut Game) -> String;
    let steps: [(f64, Step); 9] = [
        (0.0, |g| {
            format!("{:?}", g.apply(g.hero, g.bolt_cooldown(1.0)))
        }),
        (0.0, |g| {
            format!("{:?}", g.apply(g.hero, g.bolt_cooldown(2.0)))
        }),
        (0.5, |g| format!("{:?}", g.apply(g.hero, g.stun(1.0)))),
        // The first cooldown has just ended: its slot is taken again.
        (1.0, |g| {
            format!("{:?}", g.apply(g.hero, g.bolt_cooldown(1.0)))
        }),
        (1.0, |g| {
            let oldest = g
                .world
                .get::<&AbilitySystem>(g.hero)
                .unwrap()
                .effects()
                .effects(g.gas.now())
                .next();
            let removed = oldest.map(|(key, _)| g.gas.remove_effect(&mut g.world, g.hero, key));
            format!("{removed:?}")
        }),
        (1.5, |g| {
            format!("{:?}", g.apply(g.hero, g.bolt_cooldown(0.25)))
        }),
        (1.75, |g| format!("{:?}", g.apply(g.hero, g.stun(0.25)))),
        (2.0, |g| {
            let bolt = g.tag("Cooldown.Spell.Bolt");
            format!(
                "{}",
                g.gas.remove_effects_with_tag(&mut g.world, g.hero, bolt)
            )
        }),
        (4.0, |g| {
            format!("{:?}", g.apply(g.hero, g.bolt_cooldown(1.0)))
        }),
    ];
    for (at, step) in steps {
        let mut seen = Vec::new();
        for g in [&mut quiet, &mut traced] {
            g.at(at);
            let before = g.effects_seen();
            let did = step(g);
            seen.push((before, did, g.effects_seen()));
            assert!(gaskit::invariants::check(&g.world, &g.gas).is_empty());
        }
        assert_eq!(seen[0], seen[1]);
    }
    for g in [&mut quiet, &mut traced] {
        g.at(6.0);
    }
    assert_eq!(quiet.effects_seen(), traced.effects_seen());
    assert!(!quiet.has(quiet.hero, "Cooldown.Spell.Bolt"));
    assert!(quiet.gas.trace().events().is_empty());
    assert!(!traced.gas.trace().events().is_empty());
}

/// An observer of a tag is told of a cooldown's coming and going though
/// the trace records nothing: observing the tag is watching it, so the
/// cooldown takes the long path.
#[test]
fn an_observer_of_a_cooldown_s_tag_is_told_though_nothing_is_recorded() {
    let mut g = tracing(TraceFilter::NONE);
    let bolt = g.tag("Cooldown.Spell.Bolt");
    let told = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    for (what, present) in [
        (Observe::tag_added(bolt), true),
        (Observe::tag_removed(bolt), false),
    ] {
        let told = told.clone();
        g.gas.observe(what.of(g.hero), move |_, gas, _| {
            told.lock()
                .unwrap()
                .push((gas.now().as_secs_f64(), present));
        });
    }
    g.apply(g.hero, g.bolt_cooldown(1.0));
    g.at(1.0);
    g.apply(g.hero, g.bolt_cooldown(1.0));
    g.at(3.0);
    assert_eq!(
        *told.lock().unwrap(),
        [(0.0, true), (1.0, false), (1.0, true), (2.0, false)]
    );
    assert!(g.gas.trace().events().is_empty());
}

// ------------------------------------------------------------ refreshes at the stack limit

/// Rain soaks (one stack, its window restarted by every shower); a
/// campfire warms a villager (two stacks per source, a Stamina point each,
/// refused while wet).
const WEATHER: &str = r#"(effects: [
    (name: "GE_Wet", duration: Duration(SetByCaller("Status.Wet")), granted_tags: ["Status.Wet"],
     stacking: (by: Target, limit: 1)),
    (name: "GE_Warmth", duration: Duration(Constant(4)), granted_tags: ["Status.Warm"],
     modifiers: [(attribute: "Stamina", op: Flat, magnitude: Constant(1))],
     application_requirements: (none: ["Status.Wet"]),
     stacking: (by: Source, limit: 2)),
])"#;

impl Game {
    fn shower(&self, seconds: f64) -> EffectSpec {
        self.spec("GE_Wet")
            .with_set_by_caller(self.tag("Status.Wet"), seconds)
    }

    fn warmth_from(&self, source: Entity) -> EffectSpec {
        self.spec("GE_Warmth").with_source(source)
    }

    /// `(remaining, duration)` of what grants `tag` to `who`, in seconds.
    fn window(&self, who: Entity, tag: &str) -> Option<(f64, f64)> {
        self.gas
            .time_remaining_and_duration(&self.world, who, self.tag(tag))
            .map(|(left, of)| (left.as_secs_f64(), of.as_secs_f64()))
    }

    /// `(remaining, duration)` of one active effect of `who`, in seconds.
    fn stack_window(&self, who: Entity, key: EffectKey) -> Option<(f64, f64)> {
        let system = self.world.get::<&AbilitySystem>(who).unwrap();
        let (left, of) = system.effects().remaining(key, self.gas.now())?;
        Some((left.as_secs_f64(), of?.as_secs_f64()))
    }

    fn assert_sound(&self) {
        let broken = gaskit::invariants::check(&self.world, &self.gas);
        assert!(broken.is_empty(), "{broken:?}");
    }
}

/// A full stack whose duration refreshes is re-applied by restarting its
/// window, later or earlier than the one it had, under the same key, with
/// its stacks, modifiers and records as the rule says; below the limit a
/// re-application still adds a stack; a stack per source refreshes only
/// its own source's; and a refusal or a spec that fails to evaluate at the
/// limit changes nothing (the short path gives way to the full one).
#[test]
fn a_full_stack_re_applied_restarts_its_window_and_nothing_else() {
    let quiet = weather_day(TraceFilter::NONE);
    let traced = weather_day(TraceFilter::ALL);
    assert_eq!(quiet, traced, "the same states, recorded or not");
}

/// The day of [`a_full_stack_re_applied_restarts_its_window_and_nothing_else`]
/// with the trace recording `filter`; returns the state's checksum at its
/// end.
fn weather_day(filter: TraceFilter) -> u64 {
    let mut g = game_with("Status.Wet\nStatus.Warm\n", WEATHER);
    g.gas.trace_mut().set_filter(filter);
    let (hero, imp) = (g.hero, g.imp);

    // Rain: a 2 s soak, showered again at 1 s for 3 s, then for 0.5 s.
    let ApplyOutcome::Added(soak) = g.apply(imp, g.shower(2.0)) else {
        panic!("a first shower soaks");
    };
    g.at(1.0);
    assert_eq!(
        g.apply(imp, g.shower(3.0)),
        ApplyOutcome::Stacked {
            key: soak,
            stacks: 1
        }
    );
    assert_eq!(g.window(imp, "Status.Wet"), Some((3.0, 3.0)));
    g.at(2.5);
    assert!(g.has(imp, "Status.Wet"), "the first window's end is gone");
    assert_eq!(
        g.apply(imp, g.shower(0.5)),
        ApplyOutcome::Stacked {
            key: soak,
            stacks: 1
        }
    );
    g.assert_sound();
    g.at(2.999_999);
    assert!(g.has(imp, "Status.Wet"));
    g.at(3.0);
    assert!(!g.has(imp, "Status.Wet"), "the earlier window ends on time");
    let wet = g.gas.catalog().effects().get("GE_Wet").unwrap();
    let soaks: Vec<_> = g
        .gas
        .trace()
        .events()
        .iter()
        .filter_map(|e| match e.kind {
            TraceKind::EffectApplied {
                effect,
                stacks,
                duration,
                ..
            } if effect == wet => Some((
                e.time.as_secs_f64(),
                stacks,
                duration.map(|d| d.as_secs_f64()),
            )),
            _ => None,
        })
        .collect();
    if filter == TraceFilter::ALL {
        assert_eq!(
            soaks,
            [
                (0.0, 1, Some(2.0)),
                (1.0, 1, Some(3.0)),
                (2.5, 1, Some(0.5))
            ]
        );
    } else {
        assert!(soaks.is_empty());
    }

    // Warmth from the hero: two stacks, then a refresh of the full stack.
    let ApplyOutcome::Added(hero_warmth) = g.apply(imp, g.warmth_from(hero)) else {
        panic!("the first warmth lands");
    };
    g.at(4.0);
    let stacked = |key, stacks| ApplyOutcome::Stacked { key, stacks };
    assert_eq!(g.apply(imp, g.warmth_from(hero)), stacked(hero_warmth, 2));
    g.at(5.0);
    assert_eq!(g.apply(imp, g.warmth_from(hero)), stacked(hero_warmth, 2));
    assert_eq!(g.read(imp, "Stamina"), (10.0, 12.0));
    assert_eq!(g.window(imp, "Status.Warm"), Some((4.0, 4.0)));
    // Wet, the full stack is refused and keeps its window (it ends at 9 s,
    // not 4 s after this attempt).
    g.at(6.0);
    g.apply(imp, g.shower(10.0));
    assert_eq!(
        g.apply(imp, g.warmth_from(hero)),
        ApplyOutcome::Blocked(BlockReason::Requirements)
    );
    assert_eq!(g.stack_window(imp, hero_warmth), Some((3.0, 4.0)));

    // A shower that names no length fails and leaves the soak as it was.
    let before = gaskit::snapshot::checksum::<()>(&g.world, &g.gas);
    assert_eq!(
        g.failure(imp, g.spec("GE_Wet")),
        "effect `GE_Wet` needs a SetByCaller value under `Status.Wet` and the spec has none"
    );
    assert_eq!(gaskit::snapshot::checksum::<()>(&g.world, &g.gas), before);
    assert_eq!(g.window(imp, "Status.Wet"), Some((10.0, 10.0)));
    g.assert_sound();

    // Dried off, the imp's own fire is another source: a stack of its own,
    // which outlasts the hero's.
    g.at(8.0);
    let wet_tag = g.tag("Status.Wet");
    g.gas.remove_effects_with_tag(&mut g.world, imp, wet_tag);
    let ApplyOutcome::Added(own_warmth) = g.apply(imp, g.warmth_from(imp)) else {
        panic!("another source's warmth is a stack of its own");
    };
    assert_ne!(own_warmth, hero_warmth);
    assert_eq!(g.read(imp, "Stamina"), (10.0, 13.0));
    g.at(8.999_999);
    assert_eq!(g.read(imp, "Stamina"), (10.0, 13.0));
    g.at(9.0);
    assert_eq!(g.read(imp, "Stamina"), (10.0, 11.0));
    g.at(12.0);
    assert_eq!(g.read(imp, "Stamina"), (10.0, 10.0));
    g.assert_sound();
    gaskit::snapshot::checksum::<()>(&g.world, &g.gas)
}

// ------------------------------------------------------------ behaviours

type Log = Arc<Mutex<Vec<String>>>;

/// Passes its event down a chain of entities from inside its own
/// activation, so each call of the behaviour begins while the calls before
/// it are still running; a call may first register `Relay` anew (its
/// successor), as game code may at any time.
#[derive(Clone, Default)]
struct Relay {
    label: &'static str,
    log: Log,
    chain: Arc<Mutex<Vec<Entity>>>,
    successor: Arc<Mutex<Option<Relay>>>,
}

impl AbilityBehaviour for Relay {
    fn activate(&self, cx: &mut AbilityCx<'_>) {
        let chain = self.chain.lock().unwrap().clone();
        let at = chain.iter().position(|&e| e == cx.owner).unwrap();
        self.log
            .lock()
            .unwrap()
            .push(format!("{} {at}", self.label));
        let successor = self.successor.lock().unwrap().take();
        if let Some(successor) = successor {
            cx.gas.register_behaviour("Relay", successor).unwrap();
        }
        cx.end();
        if let Some(&next) = chain.get(at + 1) {
            let outcome = cx.gas.handle_event(cx.world, next, cx.event);
            assert_eq!(outcome.activations.len(), 1, "{outcome:?}");
        }
    }
}

/// A behaviour whose call causes further calls of itself runs every one of
/// them, each as it was registered when that call began: one registered
/// anew during a call is what the calls after that moment run, while the
/// call that registered it finishes as it began.
#[test]
fn a_behaviour_called_from_inside_itself_runs_each_call_as_registered_when_it_began() {
    let mut g = game_with(
        "Action.Trigger.Relay\n",
        r#"(abilities: [
            (name: "GA_Relay", trigger: "Action.Trigger.Relay", behaviour: Registered("Relay")),
        ])"#,
    );
    let relay = Relay {
        label: "first",
        ..Relay::default()
    };
    let (log, chain, successor) = (
        relay.log.clone(),
        relay.chain.clone(),
        relay.successor.clone(),
    );
    g.gas.register_behaviour("Relay", relay).unwrap();
    let ability = g.gas.catalog().abilities().get("GA_Relay").unwrap();
    let smith = g
        .world
        .spawn((Name("smith".into()), g.gas.new_ability_system()));
    let relays = [g.hero, g.imp, smith];
    for entity in relays {
        g.gas
            .grant_ability(&mut g.world, entity, ability, 1)
            .unwrap();
    }
    *chain.lock().unwrap() = relays.to_vec();
    let relay_from_the_start = |g: &mut Game| {
        let event = GameplayEvent::new(g.tag("Action.Trigger.Relay"));
        let outcome = g.gas.handle_event(&mut g.world, relays[0], event);
        assert_eq!(outcome.activations.len(), 1, "{outcome:?}");
    };
    relay_from_the_start(&mut g);
    relay_from_the_start(&mut g);
    *successor.lock().unwrap() = Some(Relay {
        label: "second",
        log: log.clone(),
        chain: chain.clone(),
        successor: Arc::default(),
    });
    relay_from_the_start(&mut g);
    relay_from_the_start(&mut g);
    // Registered anew by game code, between calls.
    let third = Relay {
        label: "third",
        log: log.clone(),
        chain: chain.clone(),
        successor: Arc::default(),
    };
    g.gas.register_behaviour("Relay", third).unwrap();
    relay_from_the_start(&mut g);
    assert_eq!(
        *log.lock().unwrap(),
        [
            "first 0", "first 1", "first 2", // nested three deep
            "first 0", "first 1", "first 2", // and again
            "first 0", "second 1", "second 2", // registered anew at 0
            "second 0", "second 1", "second 2", "third 0", "third 1", "third 2",
        ]
    );
}

/// A cost is refused when it would take its attribute below a floor that
/// another attribute sets, as it is below a constant floor: a study may
/// not spend the focus a reserve holds back, and is paid while it can be.
#[test]
fn a_cost_is_refused_below_a_floor_another_attribute_sets() {
    let catalog = catalog_with(
        r#"(
        attributes: [(name: "Reserve", base: 8), (name: "Focus", base: 25, min: "Reserve")],
        effects: [(name: "GE_Study_Cost",
                   modifiers: [(attribute: "Focus", op: Flat, magnitude: Constant(-10))])],
        abilities: [(name: "GA_Study", trigger: "Action.Trigger.Hurl", cost: "GE_Study_Cost",
                     behaviour: ApplyEffects([]))],
    )"#,
    )
    .unwrap();
    let mut g = Game::over(catalog);
    let hero = g.hero;
    let study = g.gas.catalog().abilities().get("GA_Study").unwrap();
    g.gas.grant_ability(&mut g.world, hero, study, 1).unwrap();
    let event = GameplayEvent::new(g.tag("Action.Trigger.Hurl"));
    assert!(g.gas.handle_event(&mut g.world, hero, event).activated());
    assert_eq!(g.read(hero, "Focus").1, 15.0, "25 less the cost");
    // 15 − 10 would be 5, under the reserve's 8.
    let refused = g.gas.handle_event(&mut g.world, hero, event);
    assert_eq!(
        refused.first_failure(),
        Some(ActivationFailure::Cost {
            attribute: g.attribute("Focus")
        })
    );
    assert_eq!(
        g.read(hero, "Focus").1,
        15.0,
        "a refused activation pays nothing"
    );
}

/// A cost is paid whole, so it is checked whole: two modifiers on one
/// attribute, each affordable alone, are refused together when their sum
/// is not.
#[test]
fn a_cost_of_several_modifiers_is_checked_by_their_sum() {
    let catalog = catalog_with(
        r#"(
        attributes: [(name: "Focus", base: 30, min: 0)],
        effects: [(name: "GE_Surge_Cost", modifiers: [
            (attribute: "Focus", op: Flat, magnitude: Constant(-20)),
            (attribute: "Focus", op: Flat, magnitude: Scaled([-5, -10, -15])),
        ])],
        abilities: [(name: "GA_Surge", trigger: "Action.Trigger.Hurl", cost: "GE_Surge_Cost",
                     behaviour: ApplyEffects([]))],
    )"#,
    )
    .unwrap();
    let mut g = Game::over(catalog);
    let hero = g.hero;
    let surge = g.gas.catalog().abilities().get("GA_Surge").unwrap();
    g.gas.grant_ability(&mut g.world, hero, surge, 3).unwrap();
    let event = GameplayEvent::new(g.tag("Action.Trigger.Hurl"));
    // 20 and 15 are each under 30; 35 is not.
    let refused = g.gas.handle_event(&mut g.world, hero, event);
    assert_eq!(
        refused.first_failure(),
        Some(ActivationFailure::Cost {
            attribute: g.attribute("Focus")
        })
    );
    assert_eq!(g.read(hero, "Focus"), (30.0, 30.0), "nothing paid");
    // At level 1 the sum is 25, which 30 covers.
    g.gas.grant_ability(&mut g.world, hero, surge, 1).unwrap();
    assert!(g.gas.handle_event(&mut g.world, hero, event).activated());
    assert_eq!(g.read(hero, "Focus").1, 5.0);
}

/// A cost is checked as it would be paid, whatever its magnitude: half
/// the maximum mana, an attribute magnitude, is refused from 80 mana when
/// the maximum is 200 (it was not checked at all, so the spell went off
/// and took the mana to its floor).
#[test]
fn a_cost_of_any_magnitude_is_checked_as_it_would_be_paid() {
    let catalog = catalog_with(
        r#"(
        effects: [(name: "GE_Nova_Cost", modifiers: [(attribute: "Mana", op: Flat,
                   magnitude: Attribute(attribute: "MaxMana", coefficient: -0.5))])],
        abilities: [(name: "GA_Nova", trigger: "Action.Trigger.Hurl", cost: "GE_Nova_Cost",
                     behaviour: ApplyEffects([]))],
    )"#,
    )
    .unwrap();
    let mut g = Game::over(catalog);
    let hero = g.hero;
    g.grant("GA_Nova");
    let event = GameplayEvent::new(g.tag("Action.Trigger.Hurl"));
    assert!(g.gas.handle_event(&mut g.world, hero, event).activated());
    assert_eq!(g.read(hero, "Mana").1, 100.0, "200 less half of 200");
    let mana = g.attribute("Mana");
    g.gas
        .set_base_attribute(&mut g.world, hero, mana, 80.0)
        .unwrap();
    let refused = g.gas.handle_event(&mut g.world, hero, event);
    assert_eq!(
        refused.first_failure(),
        Some(ActivationFailure::Cost { attribute: mana })
    );
    assert_eq!(g.read(hero, "Mana").1, 80.0, "nothing paid");
}

/// A commit's effects must do what the ability says, so what would not is
/// a load error naming the ability: a cost or cooldown left to chance, a
/// cooldown that never ends, and authored seconds that a cooldown with a
/// fixed duration would ignore.
#[test]
fn a_commit_that_could_not_do_what_it_says_is_a_load_error() {
    let ability = |cost: &str, cooldown: &str| {
        format!(
            r#"(
            effects: [
                (name: "GE_Lucky", chance: 0.5, modifiers: [(attribute: "Gold", op: Flat, magnitude: Constant(-1))]),
                (name: "GE_Lucky_Cooldown", chance: 0.5, duration: Duration(SetByCaller("Cooldown.Spell.Bolt")),
                 granted_tags: ["Cooldown.Spell.Bolt"]),
                (name: "GE_Forever", duration: Infinite, granted_tags: ["Cooldown.Spell.Bolt"]),
                (name: "GE_Fixed", duration: Duration(Constant(3)), granted_tags: ["Cooldown.Spell.Bolt"]),
            ],
            abilities: [(name: "GA_Try", trigger: "Action.Trigger.Hurl", {cost} {cooldown}
                         behaviour: ApplyEffects([]))],
        )"#
        )
    };
    let cases = [
        (
            ability(r#"cost: "GE_Lucky","#, ""),
            "ability `GA_Try`: cost effect `GE_Lucky` applies by chance",
        ),
        (
            ability("", r#"cooldown: (effect: "GE_Lucky_Cooldown", seconds: 2),"#),
            "ability `GA_Try`: cooldown effect `GE_Lucky_Cooldown` applies by chance",
        ),
        (
            ability("", r#"cooldown: (effect: "GE_Forever"),"#),
            "ability `GA_Try`: cooldown effect `GE_Forever` never ends",
        ),
        (
            ability("", r#"cooldown: (effect: "GE_Fixed", seconds: 5),"#),
            "ability `GA_Try`: cooldown effect `GE_Fixed` does not take its duration from a SetByCaller value, so `seconds: 5` would be ignored",
        ),
    ];
    for (content, expected) in cases {
        let errors = catalog_with(&content).unwrap_err().to_string();
        assert!(errors.contains(expected), "{expected}\nin\n{errors}");
        assert!(errors.contains("extra.ron:"), "{errors}");
    }
    // The fixed cooldown without authored seconds is fine.
    catalog_with(&ability("", r#"cooldown: (effect: "GE_Fixed"),"#)).unwrap();
}

/// A retrigger the running instance itself always refuses is a load
/// error: the checks read the owner with the instance running (as
/// Unreal's do), so an ability blocking its own tags, or owning a tag its
/// `activation_blocked` forbids, never started again. A block that holds
/// only with other tags too (`all` of its own and a stun) loads.
#[test]
fn a_retrigger_its_own_instance_always_refuses_is_a_load_error() {
    let ability = |fields: &str| {
        format!(
            r#"(abilities: [(name: "GA_Brew", trigger: "Action.Trigger.Hurl", retrigger: true,
                            ability_tags: ["Action.Trigger.Hurl"], {fields}
                            behaviour: ApplyEffects([]))])"#
        )
    };
    let cases = [
        (
            ability(r#"block_abilities_with_tags: ["Action.Trigger"],"#),
            "its `block_abilities_with_tags` block its own `ability_tags`",
        ),
        (
            ability(
                r#"activation_owned_tags: ["Status.Stunned"], activation_blocked: (any: ["Status"]),"#,
            ),
            "its `activation_owned_tags` meet its own `activation_blocked`",
        ),
        (
            ability(
                r#"activation_owned_tags: ["Status.Stunned"], activation_required: (none: ["Status"]),"#,
            ),
            "its `activation_required` forbids one of its own `activation_owned_tags`",
        ),
    ];
    for (content, why) in cases {
        let errors = catalog_with(&content).unwrap_err().to_string();
        let expected =
            format!("ability `GA_Brew`: `retrigger: true` can never happen: while it runs, {why}");
        assert!(errors.contains(&expected), "{expected}\nin\n{errors}");
        assert!(errors.contains("extra.ron:"), "{errors}");
    }
    for fields in [
        r#"activation_owned_tags: ["Status.Stunned"], activation_blocked: (all: ["Status.Stunned", "Status.Dead"]),"#,
        r#"activation_owned_tags: ["Status.Stunned"], activation_blocked: (any: ["Status.Stunned"], none: ["Status.Dead"]),"#,
        r#"block_abilities_with_tags: ["Action.Trigger.Bolt"],"#,
    ] {
        catalog_with(&ability(fields)).unwrap_or_else(|e| panic!("{fields}: {e}"));
    }
}

/// A `Mult` on an Interval attribute divides its span, so a factor that
/// is zero or below, alone or summed over the stack limit, would make the
/// span endless or negative: a load error when authored, a refused
/// application when it comes at run time (it was accepted, and the span
/// kept its old value, or went below zero). The same file's other span
/// mistakes: a points cap above 1, a duration table with a negative entry.
#[test]
fn a_span_multiplier_must_stay_above_zero() {
    let errors = catalog_with(
        r#"(
        attributes: [(name: "Recharge", base: 10, mode: Interval), (name: "Wide", mode: Interval, cap: 1.5)],
        effects: [
            (name: "GE_Freeze", duration: Duration(Constant(5)),
             modifiers: [(attribute: "Recharge", op: Mult, magnitude: Constant(0))]),
            (name: "GE_Slow", duration: Duration(Constant(5)), stacking: (by: Target, limit: 5),
             modifiers: [(attribute: "Recharge", op: Mult, magnitude: Constant(0.75))]),
            (name: "GE_Odd", duration: Duration(Scaled([5, -1]))),
        ],
    )"#,
    )
    .unwrap_err()
    .to_string();
    for expected in [
        "a Mult on the Interval attribute `Recharge` divides its span, so it must stay above 0; found 0",
        "found 0.75 (-0.25 at its 5 stacks)",
        "attribute `Wide`: an Interval attribute's points shorten its span by that fraction, so its cap must be at most 1",
        "duration must be a number of seconds ≥ 0, found -1",
    ] {
        assert!(errors.contains(expected), "{expected}\nin\n{errors}");
    }

    let catalog = catalog_with(
        r#"(
        attributes: [(name: "Recharge", base: 10, mode: Interval)],
        effects: [(name: "GE_Haste", duration: Duration(Constant(5)),
                   modifiers: [(attribute: "Recharge", op: Mult, magnitude: SetByCaller("SetByCaller.Amount"))])],
    )"#,
    )
    .unwrap();
    let mut g = Game::over(catalog);
    let hero = g.hero;
    let amount = g.tag("SetByCaller.Amount");
    let before = gaskit::snapshot::checksum::<()>(&g.world, &g.gas);
    let error = g.failure(hero, g.spec("GE_Haste").with_set_by_caller(amount, 0.0));
    assert_eq!(
        error,
        "effect `GE_Haste` multiplies a span (an Interval attribute) by 0, which at its stack limit is not above 0"
    );
    assert_eq!(gaskit::snapshot::checksum::<()>(&g.world, &g.gas), before);
    g.apply(hero, g.spec("GE_Haste").with_set_by_caller(amount, 2.0));
    assert_eq!(g.read(hero, "Recharge"), (10.0, 5.0), "twice as fast");
}

/// An effect's conditional, expiry and removal effects are given its
/// SetByCaller values, so the values they read must be given where the
/// chain starts: a missing one is a load error naming the effect that
/// reads it and the one that causes it (it loaded, and every activation
/// failed at run time after the first effect applied).
#[test]
fn a_follow_up_reading_a_value_nobody_gives_is_a_load_error() {
    let content = |given: &str| {
        format!(
            r#"(
            effects: [
                (name: "GE_Hex", modifiers: [(attribute: "Gold", op: Flat, magnitude: SetByCaller("SetByCaller.Amount"))],
                 conditional: [(effect: "GE_Curse")]),
                (name: "GE_Curse", duration: Duration(Constant(4)), on_expiry: ["GE_Drain"]),
                (name: "GE_Drain", modifiers: [(attribute: "Gold", op: Flat, magnitude: SetByCaller("SetByCaller.Bonus"))]),
            ],
            abilities: [(name: "GA_Hex", trigger: "Action.Trigger.Hurl",
                         behaviour: ApplyEffects([(effect: "GE_Hex", to: Owner, set_by_caller: [{given}])]))],
        )"#
        )
    };
    let errors = catalog_with(&content(r#"("SetByCaller.Amount", -1)"#))
        .unwrap_err()
        .to_string();
    assert!(
        errors.contains("ability `GA_Hex`: effect `GE_Drain` (caused by `GE_Hex`, with its values) needs a SetByCaller value under `SetByCaller.Bonus`"),
        "{errors}"
    );
    catalog_with(&content(
        r#"("SetByCaller.Amount", -1), ("SetByCaller.Bonus", -2)"#,
    ))
    .unwrap();
}

/// A cue carries its effect's first magnitude for all its stacks by the
/// rule the modifier is held with: a ×0.9 slow at three stacks is held as
/// ×0.7 and its cues say 0.7 (they said 2.7, the magnitude times the
/// stacks). Each re-application that stacks plays the add cue again with
/// the new magnitude, as Unreal's stacks do, unless the stacking
/// suppresses it. An empty immunity query means no immunity, as an empty
/// `activation_blocked` means no block (it made the owner immune to all).
#[test]
fn cues_carry_the_stacked_magnitude_and_an_empty_immunity_blocks_nothing() {
    for suppress_cues in [false, true] {
        let catalog = catalog_with(&format!(
            r#"(
            effects: [
                (name: "GE_Slow", duration: Duration(Constant(2)),
                 stacking: (by: Target, limit: 3, suppress_cues: {suppress_cues}),
                 modifiers: [(attribute: "Stamina", op: Mult, magnitude: Constant(0.9))],
                 cues: [(tag: "GameplayCue.Slow", on: Add), (tag: "GameplayCue.Slow", on: Remove)]),
                (name: "GE_Nothing", duration: Infinite, immunity: (any: [])),
            ],
        )"#
        ))
        .unwrap();
        let mut g = Game::over(catalog);
        let hero = g.hero;
        let seen = g.slow_cues();
        g.apply(hero, g.spec("GE_Nothing"));
        for _ in 0..3 {
            g.apply(hero, g.spec("GE_Slow"));
        }
        assert!((g.read(hero, "Stamina").1 - 7.0).abs() < 1e-9, "10 at ×0.7");
        g.at(5.0);
        let seen: Vec<_> = seen
            .lock()
            .unwrap()
            .iter()
            .map(|&(_, event, magnitude)| (event, (magnitude * 100.0).round() / 100.0))
            .collect();
        let expected = if suppress_cues {
            vec![(CueEvent::Add, 0.9), (CueEvent::Remove, 0.7)]
        } else {
            vec![
                (CueEvent::Add, 0.9),
                (CueEvent::Add, 0.8),
                (CueEvent::Add, 0.7),
                (CueEvent::Remove, 0.7),
            ]
        };
        assert_eq!(seen, expected, "suppress_cues: {suppress_cues}");
    }
}

/// An inhibited effect plays no cue, as Unreal's: applied while held back
/// it plays no add cue until it starts, it plays its remove cue when held
/// back and its add cue when it resumes, and removed while held back it
/// plays nothing more (its add cue played on application whatever the
/// inhibition, and stopping and resuming played nothing).
#[test]
fn cues_follow_inhibition() {
    let catalog = catalog_with(
        r#"(effects: [(name: "GE_Aura", duration: Infinite,
             ongoing_requirements: (none: ["Status.Stunned"]),
             modifiers: [(attribute: "Stamina", op: Flat, magnitude: Constant(1))],
             cues: [(tag: "GameplayCue.Slow", on: Add), (tag: "GameplayCue.Slow", on: Remove)])])"#,
    )
    .unwrap();
    let mut g = Game::over(catalog);
    let hero = g.hero;
    let seen = g.slow_cues();
    g.apply(hero, g.stun(1.0));
    let aura = g.apply(hero, g.spec("GE_Aura"));
    let ApplyOutcome::Added(aura) = aura else {
        panic!("{aura:?}")
    };
    g.at(2.0); // the stun ends at 1: the aura starts
    g.apply(hero, g.stun(1.0)); // held back at 2
    g.at(4.0); // resumes at 3
    g.apply(hero, g.stun(5.0)); // held back at 4
    g.at(5.0);
    assert!(g.gas.remove_effect(&mut g.world, hero, aura));
    use gaskit::CueEvent::{Add, Remove};
    let seen: Vec<_> = (seen.lock().unwrap().iter())
        .map(|&(at, event, _)| (at, event))
        .collect();
    assert_eq!(seen, [(1.0, Add), (2.0, Remove), (3.0, Add), (4.0, Remove)]);
}

/// Settings that could never fire are load errors: a cue on Execute on an
/// effect that never executes (neither instant nor periodic), and
/// `on_expiry` on an effect that never expires.
#[test]
fn what_could_never_fire_is_a_load_error() {
    let errors = catalog_with(
        r#"(
        effects: [
            (name: "GE_Glow", duration: Duration(Constant(5)),
             cues: [(tag: "GameplayCue.Slow", on: Execute)]),
            (name: "GE_Vow", duration: Infinite, on_expiry: ["GE_Revive"]),
        ],
    )"#,
    )
    .unwrap_err()
    .to_string();
    for expected in [
        "a cue on Execute fires at each execution, and this effect has none",
        "an Infinite effect never expires, so its on_expiry effects would never apply",
    ] {
        assert!(errors.contains(expected), "{expected}\nin\n{errors}");
    }
}

/// Shows how a commit that comes late goes: it waits a second, then
/// commits, and records whether the commit went through.
struct LateCommit(Arc<Mutex<Vec<Result<(), ActivationFailure>>>>);

impl AbilityBehaviour for LateCommit {
    fn activate(&self, cx: &mut AbilityCx<'_>) {
        cx.wait_delay(SimDuration::from_secs(1));
    }

    fn wake(&self, cx: &mut AbilityCx<'_>, _: gaskit::WakeReason) {
        let committed = cx.commit();
        self.0.lock().unwrap().push(committed);
        cx.end();
    }
}

/// A hero with 100 gold running `GA_Charge` (a cost of 5 gold, the bolt's
/// 5 s cooldown) under `behaviour`, just activated.
fn charging(behaviour: impl AbilityBehaviour + 'static) -> Game {
    let catalog = catalog_with(
        r#"(
        effects: [(name: "GE_Charge_Cost", modifiers: [(attribute: "Gold", op: Flat, magnitude: Constant(-5))])],
        abilities: [(name: "GA_Charge", trigger: "Action.Trigger.Hurl", cost: "GE_Charge_Cost",
                     cooldown: (effect: "GE_Bolt_Cooldown", seconds: 5),
                     behaviour: Registered("Charge"))],
    )"#,
    )
    .unwrap();
    let mut g = Game::over(catalog);
    g.gas.register_behaviour("Charge", behaviour).unwrap();
    let hero = g.hero;
    g.grant("GA_Charge");
    let gold = g.attribute("Gold");
    g.gas
        .set_base_attribute(&mut g.world, hero, gold, 100.0)
        .unwrap();
    let event = GameplayEvent::new(g.tag("Action.Trigger.Hurl"));
    assert!(g.gas.handle_event(&mut g.world, hero, event).activated());
    g
}

/// Commits in its teardown, and records whether that went through.
struct CommitOnEnd(Arc<Mutex<Vec<Result<(), ActivationFailure>>>>);

impl AbilityBehaviour for CommitOnEnd {
    fn activate(&self, cx: &mut AbilityCx<'_>) {
        cx.wait_delay(SimDuration::from_secs(10));
    }

    fn end(&self, cx: &mut AbilityCx<'_>, _: gaskit::EndReason) {
        let committed = cx.commit();
        self.0.lock().unwrap().push(committed);
    }
}

/// A revoked ability commits nothing, as Unreal's commit finds no spec
/// for an ability no longer granted: a revoked charge committing in its
/// teardown paid its cost and started its cooldown. (A teardown of an
/// ability still granted may commit: `tests/abilities.rs`,
/// `a_retrigger_checks_again_after_the_teardown_it_caused`.)
#[test]
fn a_revoked_ability_commits_nothing() {
    let commits = Arc::new(Mutex::new(Vec::new()));
    let mut g = charging(CommitOnEnd(commits.clone()));
    let hero = g.hero;
    let charge = g.gas.catalog().abilities().get("GA_Charge").unwrap();
    g.gas.revoke_ability(&mut g.world, hero, charge).unwrap();
    assert_eq!(
        *commits.lock().unwrap(),
        [Err(ActivationFailure::NoBehaviour)]
    );
    assert_eq!(g.read(hero, "Gold").1, 100.0, "nothing paid");
    assert!(!g.has(hero, "Cooldown.Spell.Bolt"), "no cooldown");
}

/// Commits with a cooldown of two seconds as it starts, records whether
/// that went through, and ends.
struct CommitForTwo(Arc<Mutex<Vec<Result<(), ActivationFailure>>>>);

impl AbilityBehaviour for CommitForTwo {
    fn activate(&self, cx: &mut AbilityCx<'_>) {
        let committed = cx.commit_with_cooldown(2.0);
        self.0.lock().unwrap().push(committed);
        cx.end();
    }
}

/// A behaviour's own cooldown length sets the cooldown's SetByCaller
/// duration; asked of an ability whose cooldown lasts a fixed length, or
/// that has none, it is refused and nothing is spent. The length used to
/// be dropped, and the ability cooled down for another one (or not at
/// all) with its cost paid.
#[test]
fn a_cooldown_length_from_the_behaviour_is_set_or_refused() {
    let catalog = catalog_with(
        r#"(
        effects: [
            (name: "GE_Charge_Cost", modifiers: [(attribute: "Gold", op: Flat, magnitude: Constant(-5))]),
            (name: "GE_Rest_Cooldown", duration: Duration(Constant(10)), granted_tags: ["Cooldown.Spell.Bolt"]),
        ],
        abilities: [
            (name: "GA_Charge", trigger: "Action.Trigger.Hurl", cost: "GE_Charge_Cost",
             cooldown: (effect: "GE_Bolt_Cooldown", seconds: 5), behaviour: Registered("CommitForTwo")),
            (name: "GA_Rest", trigger: "Action.Trigger.Hurl", cost: "GE_Charge_Cost",
             cooldown: (effect: "GE_Rest_Cooldown"), behaviour: Registered("CommitForTwo")),
            (name: "GA_Idle", trigger: "Action.Trigger.Hurl", cost: "GE_Charge_Cost",
             behaviour: Registered("CommitForTwo")),
        ],
    )"#,
    )
    .unwrap();
    let rest_cooldown = catalog.effects().get("GE_Rest_Cooldown").unwrap();
    for (ability, expected) in [
        ("GA_Charge", Ok(())),
        (
            "GA_Rest",
            Err(ActivationFailure::UnsettableCooldown(Some(rest_cooldown))),
        ),
        ("GA_Idle", Err(ActivationFailure::UnsettableCooldown(None))),
    ] {
        let mut g = Game::over(catalog.clone());
        let commits = Arc::new(Mutex::new(Vec::new()));
        g.gas
            .register_behaviour("CommitForTwo", CommitForTwo(commits.clone()))
            .unwrap();
        let hero = g.hero;
        g.grant(ability);
        let gold = g.attribute("Gold");
        g.gas
            .set_base_attribute(&mut g.world, hero, gold, 100.0)
            .unwrap();
        let event = GameplayEvent::new(g.tag("Action.Trigger.Hurl"));
        g.gas.handle_event(&mut g.world, hero, event);
        assert_eq!(*commits.lock().unwrap(), [expected], "{ability}");
        if expected.is_ok() {
            assert_eq!(g.read(hero, "Gold").1, 95.0, "paid");
            g.at(1.9);
            assert!(g.has(hero, "Cooldown.Spell.Bolt"), "cooling down");
            g.at(2.0);
            assert!(
                !g.has(hero, "Cooldown.Spell.Bolt"),
                "for two seconds, not five"
            );
        } else {
            assert_eq!(g.read(hero, "Gold").1, 100.0, "{ability}: nothing paid");
            assert!(
                !g.has(hero, "Cooldown.Spell.Bolt"),
                "{ability}: no cooldown"
            );
        }
    }
    let failure = ActivationFailure::UnsettableCooldown(Some(rest_cooldown));
    assert_eq!(
        failure.detail(&catalog).as_deref(),
        Some("GE_Rest_Cooldown lasts a fixed length")
    );
}

/// Sends its own trigger again from its teardown.
struct Rekindle;

impl AbilityBehaviour for Rekindle {
    fn activate(&self, cx: &mut AbilityCx<'_>) {
        cx.wait_delay(SimDuration::from_secs(10));
    }

    fn end(&self, cx: &mut AbilityCx<'_>, _: gaskit::EndReason) {
        let trigger = cx.gas.catalog().tags().get("Action.Trigger.Hurl").unwrap();
        let owner = cx.owner;
        cx.gas
            .handle_event(cx.world, owner, GameplayEvent::new(trigger));
    }
}

/// A revoked ability's teardown cannot start it again: the grant is being
/// let go, so the activation is refused, and no instance outlives the
/// grant (one did, running with its tags on an ability the owner no
/// longer had).
#[test]
fn a_revoked_abilitys_teardown_cannot_start_it_again() {
    let catalog = catalog_with(
        r#"(abilities: [(name: "GA_Ember", trigger: "Action.Trigger.Hurl",
                     behaviour: Registered("Rekindle"))])"#,
    )
    .unwrap();
    let mut g = Game::over(catalog);
    g.gas.register_behaviour("Rekindle", Rekindle).unwrap();
    let hero = g.hero;
    g.grant("GA_Ember");
    let ember = g.gas.catalog().abilities().get("GA_Ember").unwrap();
    let event = GameplayEvent::new(g.tag("Action.Trigger.Hurl"));
    assert!(g.gas.handle_event(&mut g.world, hero, event).activated());
    g.gas.revoke_ability(&mut g.world, hero, ember).unwrap();
    let system = g.world.get::<&AbilitySystem>(hero).unwrap();
    assert!(!system.has_ability(ember));
    assert_eq!(system.active_instance(ember), None, "nothing left running");
    drop(system);
    assert_eq!(
        gaskit::invariants::check(&g.world, &g.gas),
        Vec::<String>::new()
    );
}

/// A commit checks the cooldown again, as Unreal's does: a charge that
/// commits a second after it starts is refused when a bolt sharing its
/// cooldown tag went off meanwhile, and pays nothing; with the cooldown
/// clear it commits.
#[test]
fn a_commit_checks_the_cooldown_again() {
    for bolt_meanwhile in [true, false] {
        let commits = Arc::new(Mutex::new(Vec::new()));
        let mut g = charging(LateCommit(commits.clone()));
        let hero = g.hero;
        g.at(0.5);
        if bolt_meanwhile {
            let bolt = GameplayEvent::new(g.tag("Action.Trigger.Bolt"))
                .target(g.imp)
                .magnitude(10.0);
            assert!(g.gas.handle_event(&mut g.world, hero, bolt).activated());
        }
        g.at(1.5);
        let committed = commits.lock().unwrap().clone();
        if bolt_meanwhile {
            let tag = g.tag("Cooldown.Spell.Bolt");
            assert!(
                matches!(committed[..], [Err(ActivationFailure::Cooldown { tag: t, .. })] if t == tag),
                "{committed:?}"
            );
            assert_eq!(g.read(hero, "Gold").1, 100.0, "nothing paid");
        } else {
            assert_eq!(committed, [Ok(())]);
            assert_eq!(g.read(hero, "Gold").1, 95.0);
        }
    }
}

/// A commit applies its cost and cooldown both or neither, and an
/// application the owner's rules refuse is not applied: the dead owner's
/// release, whose cost does not affect the dead, is refused whole (no gold
/// spent, no cooldown, nothing run) until its cost is one that does.
#[test]
fn a_cost_or_cooldown_the_owner_would_refuse_refuses_the_activation() {
    let content = |affects_dead: bool| {
        format!(
            r#"(
            effects: [
                (name: "GE_Release_Cost", affects_dead: {affects_dead},
                 modifiers: [(attribute: "Gold", op: Flat, magnitude: Constant(-50))]),
                (name: "GE_Release_Cooldown", duration: Duration(Constant(60)),
                 granted_tags: ["Cooldown.Spell.Bolt"], affects_dead: true),
            ],
            abilities: [(name: "GA_Release", trigger: "Action.Trigger.Hurl",
                         activation_required: (all: ["Status.Dead"]),
                         cost: "GE_Release_Cost", cooldown: (effect: "GE_Release_Cooldown"),
                         behaviour: ApplyEffects([(effect: "GE_Revive", to: Owner)]))],
        )"#
        )
    };
    for affects_dead in [false, true] {
        let mut g = Game::over(catalog_with(&content(affects_dead)).unwrap());
        let hero = g.hero;
        let release = g.gas.catalog().abilities().get("GA_Release").unwrap();
        g.gas.grant_ability(&mut g.world, hero, release, 1).unwrap();
        let gold = g.attribute("Gold");
        g.gas
            .set_base_attribute(&mut g.world, hero, gold, 100.0)
            .unwrap();
        g.apply(hero, g.spec("GE_Dead"));
        assert!(g.has(hero, "Status.Dead"));
        let event = GameplayEvent::new(g.tag("Action.Trigger.Hurl"));
        let cost = g.gas.catalog().effects().get("GE_Release_Cost").unwrap();
        assert_eq!(
            g.gas.can_activate(&g.world, hero, release, Some(&event)),
            if affects_dead {
                Ok(())
            } else {
                Err(ActivationFailure::CannotApply(cost))
            }
        );
        let outcome = g.gas.handle_event(&mut g.world, hero, event);
        if affects_dead {
            assert!(outcome.activated());
            assert_eq!(g.read(hero, "Gold").1, 50.0);
            assert!(g.has(hero, "Cooldown.Spell.Bolt"));
        } else {
            assert_eq!(
                outcome.first_failure(),
                Some(ActivationFailure::CannotApply(cost))
            );
            assert_eq!(g.read(hero, "Gold").1, 100.0, "no gold spent");
            assert!(!g.has(hero, "Cooldown.Spell.Bolt"), "no cooldown");
        }
    }
}

/// A commit starts the cooldown, then pays the cost, as Unreal's
/// `CommitExecute` does: a blood price that kills its payer leaves the
/// cooldown running and the ability's effects applied, and a cooldown
/// whose length reads what the cost spends reads it before the payment.
#[test]
fn a_commit_starts_the_cooldown_before_it_pays_the_cost() {
    let catalog = catalog_with(
        r#"(
        effects: [
            (name: "GE_Blood_Price", modifiers: [(attribute: "Health", op: Flat, magnitude: Constant(-50))]),
            (name: "GE_Focus_Cost", modifiers: [(attribute: "Mana", op: Flat, magnitude: Constant(-150))]),
            // A tenth of a second of cooldown for every point of Mana.
            (name: "GE_Focus_Cooldown", duration: Duration(Attribute(attribute: "Mana", coefficient: 0.1)),
             granted_tags: ["Cooldown.Spell.Bolt"]),
        ],
        abilities: [
            (name: "GA_Martyr", trigger: "Action.Trigger.Hurl", cost: "GE_Blood_Price",
             cooldown: (effect: "GE_Bolt_Cooldown", seconds: 5),
             behaviour: ApplyEffects([(effect: "GE_Bolt", to: Target, event_magnitude: "SetByCaller.Amount")])),
            (name: "GA_Focus", trigger: "Action.Trigger.Bolt", cost: "GE_Focus_Cost",
             cooldown: (effect: "GE_Focus_Cooldown"), behaviour: ApplyEffects([])),
        ],
    )"#,
    )
    .unwrap();
    let mut g = Game::over(catalog);
    let (hero, imp) = (g.hero, g.imp);
    let martyr = g.gas.catalog().abilities().get("GA_Martyr").unwrap();
    g.gas.grant_ability(&mut g.world, imp, martyr, 1).unwrap();
    let event = GameplayEvent::new(g.tag("Action.Trigger.Hurl"))
        .target(hero)
        .magnitude(7.0);
    let outcome = g.gas.handle_event(&mut g.world, imp, event);
    assert!(outcome.activated(), "{outcome:?}");
    assert_eq!(g.read(imp, "Health").1, 0.0, "the price is paid in full");
    assert!(g.has(imp, "Status.Dead"));
    assert!(g.has(imp, "Cooldown.Spell.Bolt"), "the cooldown runs");
    assert_eq!(g.read(hero, "Health").1, 63.0, "the bolt lands");

    // The same price on an ability its owner's death cancels: the commit
    // kills, the ability ends, and its bolt does not land.
    let martyr_cancelled = catalog_with(
        r#"(
        effects: [(name: "GE_Blood_Price", modifiers: [(attribute: "Health", op: Flat, magnitude: Constant(-50))])],
        abilities: [(name: "GA_Martyr", trigger: "Action.Trigger.Hurl", cost: "GE_Blood_Price",
                     cooldown: (effect: "GE_Bolt_Cooldown", seconds: 5),
                     cancel_on_tags_added: ["Status.Dead"],
                     behaviour: ApplyEffects([(effect: "GE_Bolt", to: Target, event_magnitude: "SetByCaller.Amount")]))],
    )"#,
    )
    .unwrap();
    let mut h = Game::over(martyr_cancelled);
    let (hero_h, imp_h) = (h.hero, h.imp);
    let martyr_h = h.gas.catalog().abilities().get("GA_Martyr").unwrap();
    h.gas
        .grant_ability(&mut h.world, imp_h, martyr_h, 1)
        .unwrap();
    let event_h = GameplayEvent::new(h.tag("Action.Trigger.Hurl"))
        .target(hero_h)
        .magnitude(7.0);
    h.gas.handle_event(&mut h.world, imp_h, event_h);
    assert!(h.has(imp_h, "Status.Dead"));
    assert_eq!(
        h.read(hero_h, "Health").1,
        70.0,
        "the cancelled martyr's bolt never lands"
    );

    // The hero's Mana is 200, so the cooldown is 20 s, not 5 s.
    g.grant("GA_Focus");
    let focus = GameplayEvent::new(g.tag("Action.Trigger.Bolt"));
    assert!(g.gas.handle_event(&mut g.world, hero, focus).activated());
    assert_eq!(g.read(hero, "Mana").1, 50.0);
    g.at(19.9);
    assert!(g.has(hero, "Cooldown.Spell.Bolt"));
    g.at(20.0);
    assert!(!g.has(hero, "Cooldown.Spell.Bolt"));
}

/// A commit is both or neither: a cost whose requirements the cooldown's
/// own tag would fail (content at odds with itself) refuses the
/// activation before either applies. Judged on the owner as it stood, it
/// passed, the cooldown started, the cost was refused, and the commit
/// failed with the cooldown left running.
#[test]
fn a_cost_the_cooldown_would_refuse_refuses_the_activation_before_either_applies() {
    let catalog = catalog_with(
        r#"(
        effects: [(name: "GE_Quiet_Cost", application_requirements: (none: ["Cooldown.Spell.Bolt"]),
                   modifiers: [(attribute: "Gold", op: Flat, magnitude: Constant(-5))])],
        abilities: [(name: "GA_Hush", trigger: "Action.Trigger.Hurl", cost: "GE_Quiet_Cost",
                     cooldown: (effect: "GE_Bolt_Cooldown", seconds: 5),
                     behaviour: ApplyEffects([]))],
    )"#,
    )
    .unwrap();
    let mut g = Game::over(catalog);
    let hero = g.hero;
    g.grant("GA_Hush");
    let gold = g.attribute("Gold");
    g.gas
        .set_base_attribute(&mut g.world, hero, gold, 20.0)
        .unwrap();
    let cost = g.gas.catalog().effects().get("GE_Quiet_Cost").unwrap();
    let event = GameplayEvent::new(g.tag("Action.Trigger.Hurl"));
    let refused = g.gas.handle_event(&mut g.world, hero, event);
    assert_eq!(
        refused.first_failure(),
        Some(ActivationFailure::CannotApply(cost))
    );
    assert!(!g.has(hero, "Cooldown.Spell.Bolt"), "no cooldown");
    assert_eq!(g.read(hero, "Gold").1, 20.0, "no gold");
}

/// A source requirement on an event with no source, or with one that has
/// no ability system, judges a source holding no tags: a requirement that
/// only forbids a tag passes, one that needs a tag fails. Every such
/// event was refused, so a server's events (no instigator) could never
/// activate an ability that only refuses stunned sources.
#[test]
fn a_source_requirement_judges_a_missing_source_as_holding_no_tags() {
    let catalog = catalog_with(
        r#"(abilities: [
        (name: "GA_Heed", trigger: "Action.Trigger.Hurl", source_required: (none: ["Status.Stunned"]),
         behaviour: ApplyEffects([])),
        (name: "GA_Pity", trigger: "Action.Trigger.Hurl", source_required: (all: ["Status.Stunned"]),
         behaviour: ApplyEffects([])),
    ])"#,
    )
    .unwrap();
    let mut g = Game::over(catalog);
    let (hero, imp) = (g.hero, g.imp);
    let abilities = g.gas.catalog().abilities();
    let (heed, pity) = (
        abilities.get("GA_Heed").unwrap(),
        abilities.get("GA_Pity").unwrap(),
    );
    for id in [heed, pity] {
        g.gas.grant_ability(&mut g.world, imp, id, 1).unwrap();
    }
    let rock = g.world.spawn((Name("rock".into()),));
    let hurl = GameplayEvent::new(g.tag("Action.Trigger.Hurl"));
    let refused = Err(ActivationFailure::SourceRequirements);
    for source in [None, Some(rock)] {
        let mut event = hurl;
        event.instigator = source;
        assert_eq!(
            g.gas.can_activate(&g.world, imp, heed, Some(&event)),
            Ok(())
        );
        assert_eq!(
            g.gas.can_activate(&g.world, imp, pity, Some(&event)),
            refused
        );
    }
    let from_hero = hurl.instigator(hero);
    assert_eq!(
        g.gas.can_activate(&g.world, imp, heed, Some(&from_hero)),
        Ok(())
    );
    assert_eq!(
        g.gas.can_activate(&g.world, imp, pity, Some(&from_hero)),
        refused
    );
    g.apply(hero, g.stun(5.0));
    assert_eq!(
        g.gas.can_activate(&g.world, imp, heed, Some(&from_hero)),
        refused
    );
    assert_eq!(
        g.gas.can_activate(&g.world, imp, pity, Some(&from_hero)),
        Ok(())
    );
    // A client's event comes from the owner, named or not: a stunned
    // player cannot pass a forbid-only requirement by naming no source.
    let client = gaskit::ClientId(7);
    let local = catalog_with(
        r#"(abilities: [(name: "GA_Plead", trigger: "Action.Trigger.Hurl", net: LocalPredicted,
                         source_required: (none: ["Status.Stunned"]), behaviour: ApplyEffects([]))])"#,
    )
    .unwrap();
    let plead = local.abilities().get("GA_Plead").unwrap();
    let mut h = Game::over(local);
    let player = h.hero;
    h.world
        .insert_one(player, gaskit::NetOwner(client))
        .unwrap();
    h.gas.grant_ability(&mut h.world, player, plead, 1).unwrap();
    let asked = GameplayEvent::new(h.tag("Action.Trigger.Hurl")).from_client(client);
    assert_eq!(
        h.gas.can_activate(&h.world, player, plead, Some(&asked)),
        Ok(())
    );
    h.apply(player, h.stun(5.0));
    assert_eq!(
        h.gas.can_activate(&h.world, player, plead, Some(&asked)),
        refused,
        "no instigator named, judged on the owner"
    );
}

/// Live captures are re-read when what they read moves, and only then:
/// a source's move reaches its holder, the first time and every time
/// after; a holder that takes its aura later is re-read too; a holder's
/// own attribute read live follows it; a bystander's move re-reads
/// nothing; and after a restore (which does not save what each holder
/// reads) the next move still reaches its holder.
#[test]
fn a_live_capture_follows_what_it_reads_and_nothing_else() {
    let catalog = catalog_with(
        r#"(effects: [
        (name: "GE_Inspire", duration: Infinite, modifiers: [(attribute: "Stamina", op: Flat,
            magnitude: Attribute(attribute: "Vitality", from: Source, live: true))]),
        (name: "GE_Steel", duration: Infinite, modifiers: [(attribute: "MaxMana", op: Flat,
            magnitude: Attribute(attribute: "Gold", from: Target, live: true))]),
    ])"#,
    )
    .unwrap();
    let mut g = Game::over(catalog);
    let (hero, imp) = (g.hero, g.imp);
    let bard = g.world.spawn((g.gas.new_ability_system(),));
    let (vitality, gold) = (g.attribute("Vitality"), g.attribute("Gold"));
    let set = |g: &mut Game, who, attribute, value| {
        g.gas
            .set_base_attribute(&mut g.world, who, attribute, value)
            .unwrap();
    };
    let inspire = |g: &Game, from| g.spec("GE_Inspire").with_source(from);
    g.apply(hero, inspire(&g, imp));
    assert_eq!(g.read(hero, "Stamina").1, 15.0, "10 + the imp's 5");
    set(&mut g, imp, vitality, 7.0);
    assert_eq!(g.read(hero, "Stamina").1, 17.0);
    set(&mut g, imp, vitality, 9.0);
    assert_eq!(g.read(hero, "Stamina").1, 19.0);
    set(&mut g, bard, gold, 50.0);
    assert_eq!(g.read(hero, "Stamina").1, 19.0, "a bystander moves nothing");
    // A later holder, of a source nothing read before.
    let muse = g.world.spawn((g.gas.new_ability_system(),));
    g.apply(bard, inspire(&g, muse));
    set(&mut g, muse, vitality, 8.0);
    assert_eq!(g.read(bard, "Stamina").1, 18.0, "a later holder, 10 + 8");
    g.apply(imp, g.spec("GE_Steel"));
    set(&mut g, imp, gold, 30.0);
    assert_eq!(g.read(imp, "MaxMana").1, 230.0, "its own Gold, read live");
    let saved = Snapshot::<()>::save(&g.world, &g.gas);
    saved.restore(&mut g.world, &mut g.gas).unwrap();
    set(&mut g, imp, vitality, 11.0);
    assert_eq!(g.read(hero, "Stamina").1, 21.0, "after a restore");
    set(&mut g, imp, gold, 40.0);
    assert_eq!(g.read(imp, "MaxMana").1, 240.0);
}

/// Live captures that read each other's results settle in one call: Brawn
/// makes Power from Strength and Focus makes Vitality from Power, so a
/// change of Strength reaches Vitality before the call returns, whichever
/// effect the refresh meets first.
#[test]
fn a_chain_of_live_captures_settles_within_the_call_that_moved_it() {
    let mut g = Game::over(
        catalog_with(
            r#"(
            attributes: [(name: "Strength", base: 10), (name: "Power")],
            effects: [
                (name: "GE_Focus", duration: Infinite, modifiers: [(attribute: "Vitality", op: Flat,
                 magnitude: Attribute(attribute: "Power", from: Target, live: true))]),
                (name: "GE_Brawn", duration: Infinite, modifiers: [(attribute: "Power", op: Flat,
                 magnitude: Attribute(attribute: "Strength", from: Target, live: true))]),
            ])"#,
        )
        .unwrap_or_else(|e| panic!("{e}")),
    );
    let hero = g.hero;
    // Focus first: the refresh meets it before the effect that moves Power.
    g.apply(hero, g.spec("GE_Focus"));
    g.apply(hero, g.spec("GE_Brawn"));
    assert_eq!(g.read(hero, "Power").1, 10.0);
    assert_eq!(g.read(hero, "Vitality").1, 15.0, "5 and Power's 10");
    let strength = g.attribute("Strength");
    g.gas
        .set_base_attribute(&mut g.world, hero, strength, 15.0)
        .unwrap();
    assert_eq!(g.read(hero, "Power").1, 15.0);
    assert_eq!(g.read(hero, "Vitality").1, 20.0, "settled in the same call");
    assert_eq!(
        g.read(hero, "MaxHealth").1,
        220.0,
        "and the derived rule after it"
    );
}

/// A live capture feeding its own attribute would move it at every
/// refresh; it is refused at load, naming the effect and the attribute.
#[test]
fn a_live_capture_of_the_attribute_its_modifier_moves_is_a_load_error() {
    let errors = catalog_with(
        r#"(effects: [(name: "GE_Bulwark", duration: Infinite, modifiers: [(attribute: "Stamina",
            op: Flat, magnitude: Attribute(attribute: "Stamina", from: Target, live: true,
            coefficient: 0.1))])])"#,
    )
    .unwrap_err()
    .to_string();
    assert!(
        errors.contains(
            "effect `GE_Bulwark`: the modifier of `Stamina` reads `Stamina` live from the target, so its value would feed itself"
        ),
        "{errors}"
    );
    // Through the derived rule MaxHealth = 20 + 10 × Vitality: the same loop.
    let errors = catalog_with(
        r#"(effects: [(name: "GE_Vigour", duration: Infinite, modifiers: [(attribute: "Vitality",
            op: Flat, magnitude: Attribute(attribute: "MaxHealth", from: Target, live: true,
            coefficient: 0.1))])])"#,
    )
    .unwrap_err()
    .to_string();
    assert!(
        errors.contains(
            "effect `GE_Vigour`: the modifier of `Vitality` reads `MaxHealth` live from the target, which `Vitality` moves through a derived rule or bound, so its value would feed itself"
        ),
        "{errors}"
    );
    // Captured once at application, it is a plain buff.
    catalog_with(
        r#"(effects: [(name: "GE_Bulwark", duration: Infinite, modifiers: [(attribute: "Stamina",
            op: Flat, magnitude: Attribute(attribute: "Stamina", from: Target, coefficient: 0.1))])])"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
}

/// Everything that ends at an instant has ended before anything reacts to
/// any of it. The bolt's cooldown (which ends lazily) and a stun (which
/// ends on a timer: it holds a modifier) both end at 2 s; an instance
/// waiting for the cooldown to go wakes then and finds the stun gone too,
/// and so does one waiting for the stun to go, about the cooldown.
#[test]
fn a_reaction_to_an_end_sees_everything_else_ending_at_that_instant_ended() {
    struct Wary(Arc<Mutex<Vec<(String, bool, bool)>>>, Tag, Tag);
    impl AbilityBehaviour for Wary {
        fn activate(&self, cx: &mut AbilityCx<'_>) {
            let waited = cx.event.payload.unwrap();
            cx.wait_tag_removed(waited);
        }
        fn wake(&self, cx: &mut AbilityCx<'_>, _: gaskit::WakeReason) {
            let (cooldown, stun) = (self.1, self.2);
            let seen = (
                cx.gas.now().to_string(),
                cx.gas.has_tag(cx.world, cx.owner, cooldown),
                cx.gas.has_tag(cx.world, cx.owner, stun),
            );
            self.0.lock().unwrap().push(seen);
            cx.end();
        }
    }
    let mut g = Game::over(
        catalog_with(
            r#"(
            effects: [(name: "GE_Daze", duration: Duration(Constant(2)),
                       granted_tags: ["Status.Stunned"],
                       modifiers: [(attribute: "Stamina", op: Flat, magnitude: Constant(-1))])],
            abilities: [(name: "GA_Wary", trigger: "Action.Trigger.Hurl",
                         behaviour: Registered("Wary"))],
        )"#,
        )
        .unwrap_or_else(|e| panic!("{e}")),
    );
    let hero = g.hero;
    let (cooldown, stun) = (g.tag("Cooldown.Spell.Bolt"), g.tag("Status.Stunned"));
    let daze = g.gas.catalog().effects().get("GE_Daze").unwrap();
    assert!(!g.gas.catalog().effects().def(daze).ends_lazily());
    let bolt_cooldown = g.gas.catalog().effects().get("GE_Bolt_Cooldown").unwrap();
    assert!(g.gas.catalog().effects().def(bolt_cooldown).ends_lazily());
    let seen: Arc<Mutex<Vec<(String, bool, bool)>>> = Arc::default();
    let trigger = g.tag("Action.Trigger.Hurl");
    g.gas
        .register_behaviour("Wary", Wary(seen.clone(), cooldown, stun))
        .unwrap();
    let wary = g.gas.catalog().abilities().get("GA_Wary").unwrap();
    g.gas.grant_ability(&mut g.world, hero, wary, 1).unwrap();
    for waited in [cooldown, stun] {
        seen.lock().unwrap().clear();
        let start = g.gas.now();
        g.apply(hero, g.bolt_cooldown(2.0));
        g.apply(hero, g.spec("GE_Daze"));
        let event = GameplayEvent::new(trigger).payload(waited);
        assert!(g.gas.handle_event(&mut g.world, hero, event).activated());
        g.at(start.as_secs_f64() + 3.0);
        let woke = (start + SimDuration::from_secs(2)).to_string();
        assert_eq!(
            *seen.lock().unwrap(),
            [(woke, false, false)],
            "waiting on {waited:?}: both ended when it woke"
        );
    }
}

/// A stack gained or shed puts the effect's modifiers at their new values
/// in one step: a `clamp_base` Health bounded by the buffed MaxHealth is
/// never clamped to the unbuffed value in between.
#[test]
fn a_stack_gained_or_shed_never_clamps_through_the_unbuffed_value() {
    let mut g = Game::over(
        catalog_with(
            r#"(effects: [(name: "GE_Fortify", duration: Duration(Constant(10)),
                modifiers: [(attribute: "MaxHealth", op: Flat, magnitude: Constant(50))],
                stacking: (by: Target, limit: 3, on_expiry: RemoveOneAndRefresh))])"#,
        )
        .unwrap_or_else(|e| panic!("{e}")),
    );
    let imp = g.imp;
    let health = g.attribute("Health");
    g.apply(imp, g.spec("GE_Fortify"));
    g.gas
        .set_base_attribute(&mut g.world, imp, health, 100.0)
        .unwrap();
    assert_eq!(g.read(imp, "Health"), (100.0, 100.0));
    g.apply(imp, g.spec("GE_Fortify"));
    g.apply(imp, g.spec("GE_Fortify"));
    assert_eq!(g.read(imp, "MaxHealth").1, 200.0);
    assert_eq!(
        g.read(imp, "Health").1,
        100.0,
        "a stack gained costs nothing"
    );
    g.gas
        .set_base_attribute(&mut g.world, imp, health, 200.0)
        .unwrap();
    // The first expiry sheds one stack: capped at the new maximum, 150.
    g.at(10.0);
    assert_eq!(g.read(imp, "MaxHealth").1, 150.0);
    assert_eq!(g.read(imp, "Health"), (150.0, 150.0));
}

/// Stacks scale a modifier the way Unreal scales them: a sum for `Flat`,
/// the factor's excess for `Mult` (×1.2 at three stacks is ×1.6), and not
/// at all for `Override`.
#[test]
fn stacks_scale_a_factor_by_its_excess_and_leave_an_override_alone() {
    let mut g = Game::over(
        catalog_with(
            r#"(effects: [
                (name: "GE_Zeal", duration: Infinite, stacking: (by: Target, limit: 5),
                 modifiers: [(attribute: "Stamina", op: Mult, magnitude: Constant(1.2))]),
                (name: "GE_Chill", duration: Infinite, stacking: (by: Target, limit: 5),
                 modifiers: [(attribute: "Gold", op: Mult, magnitude: Constant(0.9))]),
                (name: "GE_Fix", duration: Infinite, stacking: (by: Target, limit: 5),
                 modifiers: [(attribute: "MaxMana", op: Override, magnitude: Constant(100))]),
            ])"#,
        )
        .unwrap_or_else(|e| panic!("{e}")),
    );
    let imp = g.imp;
    let gold = g.attribute("Gold");
    g.gas
        .set_base_attribute(&mut g.world, imp, gold, 100.0)
        .unwrap();
    for _ in 0..3 {
        for effect in ["GE_Zeal", "GE_Chill", "GE_Fix"] {
            g.apply(imp, g.spec(effect));
        }
    }
    assert!((g.read(imp, "Stamina").1 - 16.0).abs() < 1e-9, "10 × 1.6");
    assert!((g.read(imp, "Gold").1 - 70.0).abs() < 1e-9, "100 × 0.7");
    assert_eq!(g.read(imp, "MaxMana").1, 100.0, "an override, once");
}

/// The newest override wins, and a restack is not an application: an
/// earlier override whose live magnitude moves keeps its place behind a
/// later one.
#[test]
fn a_refreshed_override_keeps_its_place_behind_a_newer_one() {
    let mut g = Game::over(
        catalog_with(
            r#"(effects: [
                (name: "GE_Stride", duration: Infinite, modifiers: [(attribute: "Stamina",
                 op: Override, magnitude: Attribute(attribute: "Gold", from: Source, live: true))]),
                (name: "GE_Root", duration: Infinite,
                 modifiers: [(attribute: "Stamina", op: Override, magnitude: Constant(0))]),
            ])"#,
        )
        .unwrap_or_else(|e| panic!("{e}")),
    );
    let (hero, imp) = (g.hero, g.imp);
    let gold = g.attribute("Gold");
    g.gas
        .set_base_attribute(&mut g.world, imp, gold, 7.0)
        .unwrap();
    g.apply(hero, g.spec("GE_Stride").with_source(imp));
    assert_eq!(g.read(hero, "Stamina").1, 7.0);
    g.apply(hero, g.spec("GE_Root"));
    assert_eq!(g.read(hero, "Stamina").1, 0.0, "the newest override");
    g.gas
        .set_base_attribute(&mut g.world, imp, gold, 9.0)
        .unwrap();
    assert_eq!(g.read(hero, "Stamina").1, 0.0, "still the newest");
}

/// An execution writes into the base by the rule a modifier of its op
/// follows: a haste (`Mult 1.25`) shortens an interval, as it does held
/// by a lasting effect, and points are clamped to the attribute's cap.
#[test]
fn an_execution_moves_an_interval_the_way_a_lasting_modifier_does() {
    let mut g = Game::over(
        catalog_with(
            r#"(
            attributes: [(name: "Recharge", base: 60, mode: Interval, cap: 0.6)],
            effects: [
                (name: "GE_Haste_Now", modifiers: [(attribute: "Recharge", op: Mult, magnitude: Constant(1.25))]),
                (name: "GE_Haste", duration: Infinite,
                 modifiers: [(attribute: "Recharge", op: Mult, magnitude: Constant(1.25))]),
                (name: "GE_Focus_Now", modifiers: [(attribute: "Recharge", op: Points, magnitude: Constant(0.7))]),
            ])"#,
        )
        .unwrap_or_else(|e| panic!("{e}")),
    );
    let (hero, imp) = (g.hero, g.imp);
    g.apply(hero, g.spec("GE_Haste"));
    g.apply(imp, g.spec("GE_Haste_Now"));
    assert_eq!(g.read(hero, "Recharge"), (60.0, 48.0));
    assert_eq!(
        g.read(imp, "Recharge"),
        (48.0, 48.0),
        "the same, into the base"
    );
    // 0.7 points on a cap of 0.6: 48 × (1 − 0.6).
    g.apply(imp, g.spec("GE_Focus_Now"));
    assert!((g.read(imp, "Recharge").0 - 19.2).abs() < 1e-9);
}

/// An execution writes the base, and a derived rule may own it: the
/// catalog warns, naming the effect, the attribute and the profile, since
/// on an entity of that profile the execution would change nothing.
#[test]
fn an_execution_into_a_base_a_derived_rule_owns_is_warned_at_load() {
    let catalog = catalog_with(
        r#"(effects: [(name: "GE_Elixir",
            modifiers: [(attribute: "MaxHealth", op: Flat, magnitude: Constant(10))])])"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let warnings: Vec<String> = catalog.warnings().iter().map(|w| w.to_string()).collect();
    assert!(
        warnings.iter().any(|w| w.contains(
            "effect `GE_Elixir`: executes into `MaxHealth`, whose base derived profile `Hero` owns"
        )),
        "{warnings:?}"
    );
    // Held as a modifier it works on every profile: no warning.
    let held = catalog_with(
        r#"(effects: [(name: "GE_Elixir", duration: Infinite,
            modifiers: [(attribute: "MaxHealth", op: Flat, magnitude: Constant(10))])])"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(held
        .warnings()
        .iter()
        .all(|w| !w.to_string().contains("GE_Elixir")));
}

/// Content whose reactions feed themselves cannot hang a call: an effect
/// whose own granted tag upsets its ongoing requirements is a load error,
/// and a pair doing the same through each other (which no load check
/// sees) stops at the reaction budget, recorded in the trace, with the
/// call returning and the context usable.
#[test]
fn reactions_that_never_settle_are_refused_or_stopped() {
    let own = catalog_with(
        r#"(effects: [(name: "GE_Flicker", duration: Infinite, granted_tags: ["Status.Stunned"],
             ongoing_requirements: (none: ["Status"]))])"#,
    )
    .unwrap_err()
    .to_string();
    assert!(
        own.contains("effect `GE_Flicker`: its ongoing requirements read `Status`, which its own granted tag `Status.Stunned` matches"),
        "{own}"
    );
    // The sun shines unless it is dark; night falls while the sun shines.
    let pair = catalog_with(
        r#"(effects: [
            (name: "GE_Sun", duration: Infinite, granted_tags: ["Status.Stunned"],
             ongoing_requirements: (none: ["Status.Dead"])),
            (name: "GE_Night", duration: Infinite, granted_tags: ["Status.Dead"],
             ongoing_requirements: (all: ["Status.Stunned"]), affects_dead: true),
        ])"#,
    )
    .unwrap();
    let mut g = Game::over(pair);
    g.gas.trace_mut().set_filter(TraceFilter::ALL);
    let imp = g.imp;
    g.apply(imp, g.spec("GE_Night"));
    g.apply(imp, g.spec("GE_Sun"));
    let limits = support::reaction_limits(&g.gas);
    assert_eq!(limits, [(imp, 1 << 16)]);
    // The context goes on: time passes and other entities still react.
    g.at(1.0);
    let hero = g.hero;
    g.apply(hero, g.stun(2.0));
    assert!(g.has(hero, "Status.Stunned"));
    g.at(3.0);
    assert!(!g.has(hero, "Status.Stunned"));
}

// ------------------------------------- a re-application takes the new spec

/// Effects that stack by target, each read from a SetByCaller value: a
/// blessing held on Stamina (below its limit, and at a limit of one), a
/// tax ticking into Gold, and a lazily ending hex.
const NEWEST_SPEC: &str = r#"(effects: [
    (name: "GE_Blessing", duration: Duration(Constant(10)),
     modifiers: [(attribute: "Stamina", op: Flat, magnitude: SetByCaller("SetByCaller.Bonus"))],
     stacking: (by: Target, limit: 3)),
    (name: "GE_Ward", duration: Duration(Constant(10)),
     modifiers: [(attribute: "Stamina", op: Flat, magnitude: SetByCaller("SetByCaller.Bonus"))],
     stacking: (by: Target, limit: 1)),
    (name: "GE_Tax", duration: Duration(Constant(10)), period: (seconds: 1.0),
     modifiers: [(attribute: "Gold", op: Flat, magnitude: SetByCaller("SetByCaller.Amount"))],
     stacking: (by: Target, limit: 3)),
    (name: "GE_Hex", duration: Duration(Constant(5)), granted_tags: ["Cooldown.Spell.Bolt"],
     stacking: (by: Target, limit: 1)),
])"#;

impl Game {
    /// `effect` from `source`, at `level`, with `value` under `key`.
    fn from(&self, effect: &str, source: Entity, level: u32, key: &str, value: f64) -> EffectSpec {
        self.spec(effect)
            .with_source(source)
            .with_level(level)
            .with_set_by_caller(self.tag(key), value)
    }

    /// How many active effects on `who` came from `source`, removing them.
    fn take_from(&mut self, who: Entity, source: Entity) -> usize {
        self.gas.remove_effects_from(&mut self.world, who, source)
    }
}

/// A re-application onto a stack brings its spec with it, as Unreal's
/// stack takes the newest spec: the level, the source and the SetByCaller
/// values it was applied with, so a held modifier moves to the new
/// magnitude for every stack (below the limit, at it, and on a host a
/// trace watches), a period ticks the new magnitude, and a lazily ending
/// effect names its newest source. Its window and period phase are the
/// stack's own, as before.
#[test]
fn a_reapplication_takes_the_new_spec() {
    for watched in [false, true] {
        let mut g = Game::over(catalog_with(NEWEST_SPEC).unwrap());
        let filter = if watched {
            TraceFilter::ALL
        } else {
            TraceFilter::NONE
        };
        g.gas.trace_mut().set_filter(filter);
        let (hero, imp) = (g.hero, g.imp);
        let bonus = "SetByCaller.Bonus";
        // Below the limit: two stacks at the second spec's 5 each.
        g.apply(hero, g.from("GE_Blessing", hero, 1, bonus, 2.0));
        assert_eq!(g.read(hero, "Stamina").1, 12.0);
        let outcome = g.apply(hero, g.from("GE_Blessing", imp, 3, bonus, 5.0));
        assert!(
            matches!(outcome, ApplyOutcome::Stacked { stacks: 2, .. }),
            "{outcome:?}"
        );
        assert_eq!(
            g.read(hero, "Stamina").1,
            20.0,
            "10 + 5 x 2 (watched: {watched})"
        );
        // At a limit of one: the ward's one stack moves from 2 to 7.
        g.apply(hero, g.from("GE_Ward", hero, 1, bonus, 2.0));
        assert_eq!(g.read(hero, "Stamina").1, 22.0);
        let outcome = g.apply(hero, g.from("GE_Ward", imp, 1, bonus, 7.0));
        assert!(
            matches!(outcome, ApplyOutcome::Stacked { stacks: 1, .. }),
            "{outcome:?}"
        );
        assert_eq!(
            g.read(hero, "Stamina").1,
            27.0,
            "10 + 10 + 7 (watched: {watched})"
        );
        // Both now come from the imp: removing the hero's takes nothing.
        assert_eq!(g.take_from(hero, hero), 0);
        assert_eq!(g.take_from(hero, imp), 2);
        assert_eq!(g.read(hero, "Stamina").1, 10.0);

        // A period ticks the newest magnitude, for every stack, on the
        // phase the stack started.
        let amount = "SetByCaller.Amount";
        g.apply(imp, g.from("GE_Tax", hero, 1, amount, 1.0));
        g.at(0.5);
        g.apply(imp, g.from("GE_Tax", hero, 1, amount, 4.0));
        g.at(1.0);
        assert_eq!(
            g.read(imp, "Gold").0,
            8.0,
            "4 x 2 at 1 s (watched: {watched})"
        );

        // A lazily ending hex names its newest source.
        let hex = g.gas.catalog().effects().get("GE_Hex").unwrap();
        assert!(g.gas.catalog().effects().def(hex).ends_lazily());
        g.apply(imp, g.spec("GE_Hex").with_source(hero));
        g.at(2.0);
        g.apply(imp, g.spec("GE_Hex").with_source(imp));
        assert_eq!(g.take_from(imp, hero), 1, "the tax is the hero's");
        assert!(g.has(imp, "Cooldown.Spell.Bolt"));
        assert_eq!(g.take_from(imp, imp), 1, "the hex is the imp's now");
        assert!(!g.has(imp, "Cooldown.Spell.Bolt"));
    }
}

/// An effect held back from its application by its ongoing requirements
/// (a regeneration applied to a stunned hero) says so in the trace then,
/// so the `resumed` that comes when it starts follows an `inhibited`; one
/// that starts at once says neither.
#[test]
fn an_effect_held_back_from_the_start_is_traced_as_inhibited() {
    let mut g = Game::new();
    let (hero, imp) = (g.hero, g.imp);
    g.apply(hero, g.stun(2.0));
    g.apply(hero, g.spec("GE_Regen"));
    g.apply(imp, g.spec("GE_Regen"));
    g.at(3.0);
    let text = g.text();
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("GE_Regen") && !l.contains("execute"))
        .collect();
    let hero_lines: Vec<&&str> = lines.iter().filter(|l| l.contains("hero")).collect();
    assert_eq!(hero_lines.len(), 3, "{text}");
    assert!(hero_lines[0].contains("effect+ GE_Regen"), "{text}");
    assert!(
        hero_lines[1].contains("0.000") && hero_lines[1].contains("inhibited GE_Regen"),
        "{text}"
    );
    assert!(
        hero_lines[2].contains("2.000") && hero_lines[2].contains("resumed GE_Regen"),
        "{text}"
    );
    let imp_lines: Vec<&&str> = lines.iter().filter(|l| l.contains("imp")).collect();
    assert_eq!(imp_lines.len(), 1, "only its application: {text}");
}

/// An effect's stack re-applied at a new level grants its abilities at
/// that level, as the stack now holds the newest spec; an ability game
/// code granted keeps the level it gave.
#[test]
fn a_reapplication_at_a_new_level_regrants_at_it() {
    let gift = r#"(effects: [(name: "GE_Gift", duration: Duration(Constant(10)),
        granted_abilities: ["GA_Bolt"], stacking: (by: Target, limit: 2))])"#;
    let mut g = Game::over(catalog_with(gift).unwrap());
    let (hero, imp) = (g.hero, g.imp);
    let bolt = g.gas.catalog().abilities().get("GA_Bolt").unwrap();
    let level = |g: &Game, who: Entity| {
        let system = g.world.get::<&AbilitySystem>(who).unwrap();
        let level = system
            .granted_abilities()
            .find(|&(a, _)| a == bolt)
            .map(|(_, l)| l);
        level
    };
    g.apply(imp, g.spec("GE_Gift").with_level(1));
    assert_eq!(level(&g, imp), Some(1));
    g.apply(imp, g.spec("GE_Gift").with_level(4));
    assert_eq!(level(&g, imp), Some(4), "the stack's new level");
    // The hero was granted the bolt directly at level 1.
    g.apply(hero, g.spec("GE_Gift").with_level(2));
    g.apply(hero, g.spec("GE_Gift").with_level(5));
    assert_eq!(level(&g, hero), Some(1), "game code's level stands");
}

/// Whether the owner holds `Cooldown.Spell.Bolt` (the root below) when
/// its stun ends.
struct StunWatch(Arc<Mutex<Vec<bool>>>);

impl AbilityBehaviour for StunWatch {
    fn activate(&self, cx: &mut AbilityCx<'_>) {
        let stunned = cx.gas.catalog().tags().get("Status.Stunned").unwrap();
        cx.wait_tag_removed(stunned);
    }

    fn wake(&self, cx: &mut AbilityCx<'_>, _: gaskit::WakeReason) {
        let rooted = cx.gas.catalog().tags().get("Cooldown.Spell.Bolt").unwrap();
        let held = cx.gas.has_tag(cx.world, cx.owner, rooted);
        self.0.lock().unwrap().push(held);
        cx.end();
    }
}

/// A kill by a periodic effect's last tick, due at one instant with other
/// ends, reacts once they have all ended, as every end does: an instance
/// waiting for the hero's stun to end, woken at that instant, finds the
/// hero's root (ending then too, after the bleed) gone already. The death
/// reconciled at once and woke it with the root still held.
#[test]
fn a_kill_by_a_last_tick_reacts_after_the_instants_other_ends() {
    let extra = r#"(
        effects: [
            (name: "GE_Bleed", duration: Duration(Constant(2)), period: (seconds: 1.0),
             modifiers: [(attribute: "Health", op: Flat, magnitude: Constant(-30))]),
            (name: "GE_Root", duration: Duration(Constant(2)), granted_tags: ["Cooldown.Spell.Bolt"],
             modifiers: [(attribute: "Stamina", op: Flat, magnitude: Constant(-1))]),
        ],
        abilities: [(name: "GA_Watch", trigger: "Action.Trigger.Hurl", behaviour: Registered("Watch"))],
    )"#;
    let mut g = Game::over(catalog_with(extra).unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    g.gas
        .register_behaviour("Watch", StunWatch(seen.clone()))
        .unwrap();
    let (hero, imp) = (g.hero, g.imp);
    g.grant("GA_Watch");
    // Scheduled in this order, all ending at 2 s: the stun, the bleed
    // (whose tick due then kills the imp), the root.
    g.apply(hero, g.stun(2.0));
    let hurl = g.tag("Action.Trigger.Hurl");
    g.gas
        .handle_event(&mut g.world, hero, GameplayEvent::new(hurl));
    g.apply(imp, g.spec("GE_Bleed"));
    g.apply(hero, g.spec("GE_Root"));
    g.at(2.0);
    assert!(g.has(imp, "Status.Dead"), "the last tick killed");
    assert_eq!(*seen.lock().unwrap(), [false], "woken with the root gone");
}
