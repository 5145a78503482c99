//! Executions and custom magnitudes on content that is not combat: an
//! alchemist brewing in a cauldron. Calculations are code registered by
//! name and named from data; they read captured attributes, the spec and
//! the RNG, and write attributes (meta attributes drain as usual).

use gaskit::prelude::*;
use gaskit::snapshot::{self, Snapshot};
use hecs::{Entity, World};

const TAGS: &str = "
SetByCaller.Luck
SetByCaller.Distance
Brew.Masterwork
";

const CONTENT: &str = r#"(
    attributes: [
        (name: "Skill", base: 10),
        (name: "Impurity", min: 0),
        (name: "Potency"),
        (name: "Heat"),
        (name: "Durability", base: 100, min: 0),
        (name: "Wear", meta: true, drains: "Durability"),
    ],
    effects: [
        (name: "GE_Brew", executions: ["Brew"]),
        (name: "GE_Volatile", executions: ["Brew", "Volatile"]),
        (name: "GE_Dirty", duration: Infinite,
         modifiers: [(attribute: "Impurity", op: Flat, magnitude: Constant(4))]),
        // A periodic execution reading the brewer's Skill live, every tick.
        (name: "GE_Simmer", duration: Duration(Constant(10)), period: (seconds: 0.25),
         executions: ["Simmer"]),
        (name: "GE_Practice", duration: Duration(Constant(10)), period: (seconds: 0.7),
         modifiers: [(attribute: "Skill", op: Flat, magnitude: Constant(1.5))]),
        (name: "GE_Aroma", duration: Duration(Constant(3)),
         modifiers: [(attribute: "Potency", op: Flat, magnitude: Custom("Falloff"))]),
        (name: "GE_Unstable", duration: Duration(Constant(10)), period: (seconds: 1.0),
         executions: ["Volatile"]),
        // A periodic brew: the brewer's Skill is captured once, at application.
        (name: "GE_Steep", duration: Duration(Constant(10)), period: (seconds: 1.0),
         executions: ["Brew"]),
        // Brew writes, then Stray names an attribute this catalog lacks.
        (name: "GE_Stray", executions: ["Brew", "Stray"]),
        // Custom magnitudes worked out again while the effect is active:
        // a tenth of the Potency there is at each tick; as much Heat as
        // half the brewer's Skill, followed while it lasts; a tenth of the
        // Impurity there was at application, at each tick.
        (name: "GE_Evaporate", duration: Duration(Constant(3)), period: (seconds: 1.0),
         modifiers: [(attribute: "Potency", op: Flat, magnitude: Custom("Evaporation"))]),
        (name: "GE_Glow", duration: Duration(Constant(10)),
         modifiers: [(attribute: "Heat", op: Flat, magnitude: Custom("Glow"))]),
        (name: "GE_Settle", duration: Duration(Constant(3)), period: (seconds: 1.0),
         modifiers: [(attribute: "Potency", op: Flat, magnitude: Custom("Sediment"))]),
    ],
)"#;

/// Potency = 10 + 2 × the brewer's Skill − the cauldron's Impurity, at
/// least 0; with the spec's Luck as the chance, a masterwork doubles it.
/// Every brew wears the cauldron by 1 (a meta attribute).
#[derive(Default)]
struct Brew {
    skill: Capture,
    impurity: Capture,
    potency: Option<AttributeId>,
    wear: Option<AttributeId>,
    luck: Option<Tag>,
    masterwork: Option<Tag>,
}

impl ExecutionCalculation for Brew {
    fn setup(&mut self, setup: &mut CalculationSetup<'_>) {
        self.skill = setup.capture("Skill", CaptureFrom::Source, false);
        self.impurity = setup.capture("Impurity", CaptureFrom::Target, true);
        self.potency = setup.attribute("Potency");
        self.wear = setup.attribute("Wear");
        self.luck = setup.tag("SetByCaller.Luck");
        self.masterwork = setup.tag("Brew.Masterwork");
    }

    fn execute(&self, cx: &mut ExecutionCx<'_>) {
        let mut potency =
            (10.0 + 2.0 * cx.captured(self.skill) - cx.captured(self.impurity)).max(0.0);
        let luck = self.luck.and_then(|k| cx.set_by_caller(k)).unwrap_or(0.0);
        if cx.chance(luck) {
            potency *= 2.0;
            if let Some(tag) = self.masterwork {
                cx.mark(tag);
            }
        }
        if let (Some(p), Some(w)) = (self.potency, self.wear) {
            cx.output(p, ModOp::Flat, potency);
            cx.output(w, ModOp::Flat, 1.0);
        }
    }
}

/// Heat rises by a tenth of the brewer's Skill, read fresh every tick.
#[derive(Default)]
struct Simmer {
    skill: Capture,
    heat: Option<AttributeId>,
}

impl ExecutionCalculation for Simmer {
    fn setup(&mut self, setup: &mut CalculationSetup<'_>) {
        self.skill = setup.capture("Skill", CaptureFrom::Source, true);
        self.heat = setup.attribute("Heat");
    }

    fn execute(&self, cx: &mut ExecutionCx<'_>) {
        if let Some(heat) = self.heat {
            cx.output(heat, ModOp::Flat, cx.captured(self.skill) / 10.0 + 0.001);
        }
    }
}

/// Blows up (a non-finite output) when the spec's Luck is above 0.9.
#[derive(Default)]
struct Volatile {
    luck: Option<Tag>,
    heat: Option<AttributeId>,
}

impl ExecutionCalculation for Volatile {
    fn setup(&mut self, setup: &mut CalculationSetup<'_>) {
        self.luck = setup.tag("SetByCaller.Luck");
        self.heat = setup.attribute("Heat");
    }

    fn execute(&self, cx: &mut ExecutionCx<'_>) {
        let luck = self.luck.and_then(|k| cx.set_by_caller(k)).unwrap_or(0.0);
        if let Some(heat) = self.heat {
            let value = if luck > 0.9 { f64::NAN } else { 1.0 };
            cx.output(heat, ModOp::Flat, value);
        }
    }
}

/// Writes to an attribute of another, larger catalog: a calculation
/// registered in two games that kept the wrong one's id.
struct Stray(AttributeId);

impl ExecutionCalculation for Stray {
    fn setup(&mut self, _: &mut CalculationSetup<'_>) {}

    fn execute(&self, cx: &mut ExecutionCx<'_>) {
        cx.output(self.0, ModOp::Flat, 1.0);
    }
}

/// `factor` × one captured attribute: Evaporation takes a tenth of the
/// target's Potency read at each evaluation, Glow half the source's Skill
/// read live, Sediment a tenth of the target's Impurity as it was at
/// application.
struct Fraction {
    attribute: &'static str,
    from: CaptureFrom,
    live: bool,
    factor: f64,
    capture: Capture,
}

impl Fraction {
    fn of(attribute: &'static str, from: CaptureFrom, live: bool, factor: f64) -> Self {
        Fraction {
            attribute,
            from,
            live,
            factor,
            capture: Capture::default(),
        }
    }
}

impl MagnitudeCalculation for Fraction {
    fn setup(&mut self, setup: &mut CalculationSetup<'_>) {
        self.capture = setup.capture(self.attribute, self.from, self.live);
    }

    fn magnitude(&self, cx: &MagnitudeCx<'_>) -> f64 {
        self.factor * cx.captured(self.capture)
    }
}

/// The last attribute of a catalog with more attributes than the lab's.
fn foreign_attribute() -> AttributeId {
    let names: Vec<String> = (0..12).map(|i| format!("(name: \"A{i}\")")).collect();
    let mut builder = CatalogBuilder::new();
    builder.add_source(
        "other.ron",
        &format!("(attributes: [{}])", names.join(", ")),
    );
    builder.build().unwrap().attributes().get("A11").unwrap()
}

/// An aroma's strength: 30 × level / (1 + distance).
#[derive(Default)]
struct Falloff {
    distance: Option<Tag>,
}

impl MagnitudeCalculation for Falloff {
    fn setup(&mut self, setup: &mut CalculationSetup<'_>) {
        self.distance = setup.tag("SetByCaller.Distance");
    }

    fn magnitude(&self, cx: &MagnitudeCx<'_>) -> f64 {
        let distance = self
            .distance
            .and_then(|k| cx.set_by_caller(k))
            .unwrap_or(0.0);
        30.0 * f64::from(cx.level()) / (1.0 + distance)
    }
}

fn builder() -> CatalogBuilder {
    let mut builder = CatalogBuilder::new();
    builder.tags().add_source("alchemy.tags", TAGS);
    builder.add_source("alchemy.ron", CONTENT);
    builder.add_execution("Brew", Brew::default());
    builder.add_execution("Simmer", Simmer::default());
    builder.add_execution("Volatile", Volatile::default());
    builder.add_execution("Stray", Stray(foreign_attribute()));
    let target = CaptureFrom::Target;
    builder.add_magnitude("Evaporation", Fraction::of("Potency", target, true, -0.1));
    builder.add_magnitude(
        "Glow",
        Fraction::of("Skill", CaptureFrom::Source, true, 0.5),
    );
    builder.add_magnitude("Sediment", Fraction::of("Impurity", target, false, -0.1));
    builder.add_magnitude("Falloff", Falloff::default());
    builder
}

struct Lab {
    world: World,
    gas: Gas,
    alchemist: Entity,
    cauldron: Entity,
}

impl Lab {
    fn new(seed: u64) -> Self {
        let mut gas = Gas::with_seed(builder().build().unwrap(), seed);
        gas.trace_mut().set_filter(TraceFilter::ALL);
        let mut world = World::new();
        let alchemist = world.spawn((Name("alchemist".into()), gas.new_ability_system()));
        let cauldron = world.spawn((Name("cauldron".into()), gas.new_ability_system()));
        Lab {
            world,
            gas,
            alchemist,
            cauldron,
        }
    }

    fn spec(&self, effect: &str) -> EffectSpec {
        let id = self.gas.catalog().effects().get(effect).unwrap();
        EffectSpec::new(id).with_source(self.alchemist)
    }

    fn tag(&self, name: &str) -> Tag {
        self.gas.catalog().tags().get(name).unwrap()
    }

    fn value(&self, of: Entity, attribute: &str) -> f64 {
        let id = self.gas.catalog().attributes().get(attribute).unwrap();
        self.world.get::<&AbilitySystem>(of).unwrap().current(id)
    }

    /// A lab restored, into a fresh world and context, from this one
    /// saved as text (this one left as it was).
    fn through_text(&self) -> Lab {
        let text = Snapshot::<()>::save(&self.world, &self.gas)
            .to_ron()
            .unwrap();
        let mut world = World::new();
        let mut gas = Gas::new(self.gas.catalog().clone());
        Snapshot::<()>::from_ron(&text)
            .unwrap()
            .restore(&mut world, &mut gas)
            .unwrap();
        Lab {
            world,
            gas,
            alchemist: self.alchemist,
            cauldron: self.cauldron,
        }
    }

    fn apply(&mut self, to: Entity, spec: EffectSpec) -> Result<ApplyOutcome, EffectError> {
        self.gas.apply_effect(&mut self.world, to, spec)
    }
}

#[test]
fn an_execution_reads_source_and_target_and_writes_several_attributes() {
    let mut lab = Lab::new(1);
    let cauldron = lab.cauldron;
    lab.apply(cauldron, lab.spec("GE_Brew")).unwrap();
    // 10 + 2 × 10 − 0.
    assert_eq!(lab.value(cauldron, "Potency"), 30.0);
    // The meta attribute drained into Durability and reset.
    assert_eq!(lab.value(cauldron, "Durability"), 99.0);
    assert_eq!(lab.value(cauldron, "Wear"), 0.0);

    // Impurity is read as it is now; Skill from the brewer.
    lab.apply(cauldron, lab.spec("GE_Dirty")).unwrap();
    lab.apply(cauldron, lab.spec("GE_Dirty")).unwrap();
    lab.apply(cauldron, lab.spec("GE_Brew")).unwrap();
    assert_eq!(lab.value(cauldron, "Potency"), 30.0 + 22.0);
    // Floored at zero: a filthy cauldron brews nothing, never negative.
    for _ in 0..6 {
        lab.apply(cauldron, lab.spec("GE_Dirty")).unwrap();
    }
    lab.apply(cauldron, lab.spec("GE_Brew")).unwrap();
    assert_eq!(lab.value(cauldron, "Potency"), 52.0);
    assert_eq!(lab.value(cauldron, "Durability"), 97.0);
}

#[test]
fn a_roll_uses_the_context_rng_and_marks_the_execution() {
    let luck = |lab: &Lab| lab.tag("SetByCaller.Luck");
    let brews = |seed| {
        let mut lab = Lab::new(seed);
        let (cauldron, luck) = (lab.cauldron, luck(&lab));
        let marked = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let log = marked.clone();
        let masterwork = lab.tag("Brew.Masterwork");
        lab.gas.add_hook(move |_, _, _, execution| {
            log.lock()
                .unwrap()
                .push(execution.spec.tags.has(masterwork));
        });
        let mut potencies = Vec::new();
        for _ in 0..40 {
            let before = lab.value(cauldron, "Potency");
            let spec = lab.spec("GE_Brew").with_set_by_caller(luck, 0.5);
            lab.apply(cauldron, spec).unwrap();
            potencies.push(lab.value(cauldron, "Potency") - before);
        }
        let marked = marked.lock().unwrap().clone();
        (potencies, marked)
    };
    let (potencies, marked) = brews(5);
    // Each brew is 30, or 60 marked as a masterwork.
    for (potency, masterwork) in potencies.iter().zip(&marked) {
        assert_eq!(*potency, if *masterwork { 60.0 } else { 30.0 });
    }
    let masterworks = marked.iter().filter(|&&m| m).count();
    assert!(
        (8..=32).contains(&masterworks),
        "{masterworks} of 40 at even odds"
    );
    // The same seed, the same brews; another seed, other brews.
    assert_eq!(brews(5), (potencies.clone(), marked));
    assert_ne!(brews(6).0, potencies);
}

#[test]
fn a_custom_magnitude_feeds_a_modifier() {
    let mut lab = Lab::new(1);
    let (cauldron, distance) = (lab.cauldron, lab.tag("SetByCaller.Distance"));
    let near = lab
        .spec("GE_Aroma")
        .with_level(2)
        .with_set_by_caller(distance, 1.0);
    lab.apply(cauldron, near).unwrap();
    // 30 × 2 / (1 + 1).
    assert_eq!(lab.value(cauldron, "Potency"), 30.0);
    lab.gas.advance_to(&mut lab.world, SimTime::from_secs(3));
    assert_eq!(lab.value(cauldron, "Potency"), 0.0, "gone with the effect");
}

#[test]
fn a_live_periodic_execution_is_bit_identical_at_any_frame_step() {
    let run = |step: SimDuration| {
        let mut lab = Lab::new(3);
        let (alchemist, cauldron) = (lab.alchemist, lab.cauldron);
        lab.apply(alchemist, lab.spec("GE_Practice")).unwrap();
        lab.apply(cauldron, lab.spec("GE_Simmer")).unwrap();
        let mut heats = Vec::new();
        let end = SimTime::from_secs(12);
        while lab.gas.now() < end {
            let to = (lab.gas.now() + step).min(end);
            lab.gas.advance_to(&mut lab.world, to);
            heats.push((to, lab.value(cauldron, "Heat").to_bits()));
        }
        let trace = gaskit::render_text(&lab.world, lab.gas.catalog(), lab.gas.trace().events());
        (lab.value(cauldron, "Heat").to_bits(), trace)
    };
    let reference = run(SimDuration::from_millis(1));
    // 40 ticks; Skill rose 1.5 every 0.7 s, read fresh at each one.
    let heat = f64::from_bits(reference.0);
    assert!(
        heat > 40.0 * 1.001 + 40.0 && heat < 40.0 * 2.5 + 1.0,
        "{heat}"
    );
    for micros in [16_667, 100_000, 250_000, 333_333, 1_000_000, 7_000_000] {
        assert_eq!(
            run(SimDuration::from_micros(micros)),
            reference,
            "step {micros} µs"
        );
    }
}

/// A duration effect keeps what it captured at application: later ticks
/// read it, not the source's new value, and a snapshot carries it into a
/// fresh world.
#[test]
fn captured_values_stay_with_the_effect_and_travel_with_a_snapshot() {
    let run = |raise_skill: bool| {
        let mut lab = Lab::new(5);
        let (alchemist, cauldron) = (lab.alchemist, lab.cauldron);
        lab.apply(cauldron, lab.spec("GE_Steep")).unwrap();
        if raise_skill {
            let skill = lab.gas.catalog().attributes().get("Skill").unwrap();
            lab.gas
                .set_base_attribute(&mut lab.world, alchemist, skill, 50.0)
                .unwrap();
            assert_eq!(lab.value(alchemist, "Skill"), 50.0);
        }
        lab.gas
            .advance_to(&mut lab.world, SimTime::from_millis(2_500));
        lab
    };
    let mut lab = run(true);
    // 10 + 2 × the captured 10 per tick (not 10 + 2 × 50), from 1 s on.
    assert_eq!(
        lab.value(lab.cauldron, "Potency"),
        60.0,
        "ticks at 1 and 2 s"
    );
    let unraised = run(false);
    assert_eq!(unraised.value(unraised.cauldron, "Potency"), 60.0);

    let mut restored = lab.through_text();
    let end = SimTime::from_millis(6_500);
    lab.gas.advance_to(&mut lab.world, end);
    restored.gas.advance_to(&mut restored.world, end);
    assert_eq!(lab.value(lab.cauldron, "Potency"), 180.0, "four more ticks");
    assert_eq!(
        restored.value(restored.cauldron, "Potency"),
        lab.value(lab.cauldron, "Potency")
    );
    assert_eq!(
        snapshot::checksum::<()>(&restored.world, &restored.gas),
        snapshot::checksum::<()>(&lab.world, &lab.gas)
    );
}

#[test]
fn a_non_finite_output_is_an_error_naming_the_calculation_and_changes_nothing() {
    let mut lab = Lab::new(1);
    let cauldron = lab.cauldron;
    let luck = lab.tag("SetByCaller.Luck");
    let before = (
        snapshot::checksum::<()>(&lab.world, &lab.gas),
        lab.gas.trace().events().len(),
    );
    // Brew runs first and would write Potency: the failure undoes nothing
    // because nothing was written.
    let spec = lab.spec("GE_Volatile").with_set_by_caller(luck, 0.95);
    match lab.apply(cauldron, spec) {
        Err(EffectError::CalculationFailed {
            effect,
            calculation,
            value,
        }) => {
            assert_eq!(effect.name, "GE_Volatile");
            assert_eq!(calculation, "Volatile");
            assert!(value.is_nan());
        }
        other => panic!("expected a calculation failure, got {other:?}"),
    }
    let error = lab
        .apply(
            cauldron,
            lab.spec("GE_Volatile").with_set_by_caller(luck, 0.95),
        )
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "effect `GE_Volatile`: calculation `Volatile` produced a non-finite value NaN"
    );
    let after = (
        snapshot::checksum::<()>(&lab.world, &lab.gas),
        lab.gas.trace().events().len(),
    );
    assert_eq!(after, before);
    assert_eq!(lab.value(cauldron, "Potency"), 0.0);
}

/// An output naming an attribute the target does not hold is refused
/// before anything is written (it panicked after the first calculation's
/// writes).
#[test]
fn an_output_to_an_unknown_attribute_is_an_error_and_changes_nothing() {
    let mut lab = Lab::new(1);
    let cauldron = lab.cauldron;
    let before = snapshot::checksum::<()>(&lab.world, &lab.gas);
    let error = lab.apply(cauldron, lab.spec("GE_Stray")).unwrap_err();
    assert!(
        matches!(
            &error,
            EffectError::CalculationOutputUnknown { effect, calculation, .. }
                if effect.name == "GE_Stray" && calculation == "Stray"
        ),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        "effect `GE_Stray`: calculation `Stray` wrote attribute #11 that is not in this catalog"
    );
    assert_eq!(lab.value(cauldron, "Potency"), 0.0);
    assert_eq!(snapshot::checksum::<()>(&lab.world, &lab.gas), before);
}

/// A custom magnitude on a periodic effect is worked out again at each
/// execution: a live capture reads the value then, a captured one the
/// value at application. It was worked out once and reused (Potency
/// 100 → 70, not 72.9). A held one follows its live capture of the
/// source. Both at any frame step, and through a snapshot.
#[test]
fn custom_magnitudes_are_worked_out_again_while_the_effect_is_active() {
    let run = |step_ms: u64| {
        let mut lab = Lab::new(1);
        let (alchemist, cauldron) = (lab.alchemist, lab.cauldron);
        let potency = lab.gas.catalog().attributes().get("Potency").unwrap();
        let impurity = lab.gas.catalog().attributes().get("Impurity").unwrap();
        lab.gas
            .set_base_attribute(&mut lab.world, cauldron, potency, 100.0)
            .unwrap();
        lab.apply(cauldron, lab.spec("GE_Evaporate")).unwrap();
        lab.apply(cauldron, lab.spec("GE_Glow")).unwrap();
        assert_eq!(lab.value(cauldron, "Heat"), 5.0, "half of Skill 10");
        let mut ticks = Vec::new();
        let mut at = 0;
        while at < 3_000 {
            at += step_ms;
            lab.gas.advance_to(&mut lab.world, SimTime::from_millis(at));
            let now = lab.value(cauldron, "Potency");
            if ticks.last() != Some(&now) && now != 100.0 {
                ticks.push(now);
            }
        }
        // Practice raises Skill 10 → 11.5 → 13 by 1.4 s into it.
        lab.apply(alchemist, lab.spec("GE_Practice")).unwrap();
        lab.gas
            .advance_by(&mut lab.world, SimDuration::from_millis(1_500));
        let heat = lab.value(cauldron, "Heat");
        // A snapshot keeps what a capture at application read: the
        // sediment is a tenth of Impurity 4 however the Impurity moves.
        lab.gas
            .set_base_attribute(&mut lab.world, cauldron, impurity, 4.0)
            .unwrap();
        lab.gas
            .set_base_attribute(&mut lab.world, cauldron, potency, 50.0)
            .unwrap();
        lab.apply(cauldron, lab.spec("GE_Settle")).unwrap();
        lab.gas
            .set_base_attribute(&mut lab.world, cauldron, impurity, 40.0)
            .unwrap();
        let mut restored = lab.through_text();
        restored
            .gas
            .advance_by(&mut restored.world, SimDuration::from_secs(3));
        (ticks, heat, restored.value(cauldron, "Potency"))
    };
    let (ticks, heat, settled) = run(50);
    let evaporated = [100.0 * 0.9, 100.0 * 0.9 * 0.9, 100.0 * 0.9 * 0.9 * 0.9];
    assert_eq!(ticks.len(), 3, "{ticks:?}");
    for (tick, expected) in ticks.iter().zip(evaporated) {
        assert!((tick - expected).abs() < 1e-9, "{ticks:?}");
    }
    assert_eq!(heat, 6.5, "half of Skill 13, followed while held");
    assert!((settled - (50.0 - 3.0 * 0.4)).abs() < 1e-9, "{settled}");
    assert_eq!(run(700), (ticks, heat, settled), "at another frame step");
}

#[test]
fn a_failing_periodic_execution_is_recorded_and_the_tick_passes() {
    let mut lab = Lab::new(1);
    let cauldron = lab.cauldron;
    let luck = lab.tag("SetByCaller.Luck");
    let spec = lab.spec("GE_Unstable").with_set_by_caller(luck, 0.95);
    lab.apply(cauldron, spec).unwrap();
    lab.gas.advance_to(&mut lab.world, SimTime::from_secs(3));
    let failures: Vec<String> = lab
        .gas
        .trace()
        .events()
        .iter()
        .filter(|e| matches!(e.kind, TraceKind::EffectFailed { .. }))
        .map(|e| gaskit::render_line(&lab.world, lab.gas.catalog(), e))
        .collect();
    assert_eq!(failures.len(), 3, "{failures:#?}");
    assert_eq!(
        failures[0],
        "   1.000  cauldron  effect failed: effect `GE_Unstable`: \
         calculation `Volatile` produced a non-finite value NaN"
    );
    assert_eq!(lab.value(cauldron, "Heat"), 0.0);
    let unstable = lab.gas.catalog().effects().get("GE_Unstable").unwrap();
    let system = lab.world.get::<&AbilitySystem>(cauldron).unwrap();
    assert_eq!(
        system.stack_count(unstable, lab.gas.now()),
        1,
        "the effect stays active"
    );
}

#[test]
fn unknown_calculation_names_are_load_errors_with_suggestions() {
    let mut broken = builder();
    broken.add_source(
        "broken.ron",
        r#"(effects: [
            (name: "GE_Typo", executions: ["Brewe"]),
            (name: "GE_Typo2", modifiers: [(attribute: "Heat", op: Flat, magnitude: Custom("Falof"))]),
        ])"#,
    );
    let errors = broken.build().unwrap_err().to_string();
    assert!(errors.contains("broken.ron"), "{errors}");
    assert!(
        errors.contains("`Brewe`") && errors.contains("Brew"),
        "{errors}"
    );
    assert!(
        errors.contains("`Falof`") && errors.contains("Falloff"),
        "{errors}"
    );

    // A calculation declaring an attribute the catalog lacks names itself.
    struct Reader;
    impl ExecutionCalculation for Reader {
        fn setup(&mut self, setup: &mut CalculationSetup<'_>) {
            setup.capture("Skil", CaptureFrom::Source, false);
        }
        fn execute(&self, _: &mut ExecutionCx<'_>) {}
    }
    let mut broken = builder();
    broken.add_execution("Reader", Reader);
    let errors = broken.build().unwrap_err().to_string();
    assert!(
        errors.contains("calculation `Reader`: unknown attribute `Skil`"),
        "{errors}"
    );
    assert!(errors.contains("Skill"), "suggested: {errors}");

    // A held modifier whose custom magnitude reads live the attribute it
    // moves would feed itself; on a periodic effect (GE_Evaporate) the
    // same calculation is read once per execution, and loads.
    let mut feeding = builder();
    feeding.add_source(
        "feeding.ron",
        r#"(effects: [(name: "GE_Boil", duration: Duration(Constant(5)),
            modifiers: [(attribute: "Potency", op: Flat, magnitude: Custom("Evaporation"))])])"#,
    );
    let errors = feeding.build().unwrap_err().to_string();
    assert!(
        errors.contains("feeding.ron")
            && errors
                .contains("reads `Potency` live from the target, so its value would feed itself"),
        "{errors}"
    );

    // The same name twice.
    let mut twice = builder();
    twice.add_execution("Brew", Brew::default());
    let errors = twice.build().unwrap_err().to_string();
    assert!(errors.contains("`Brew` is registered twice"), "{errors}");
}

/// Writes one uniform draw into Potency and one integer draw, through
/// the RNG's own methods, into Heat; or asks `chance(p)` into Impurity.
struct Dice {
    chance: Option<f64>,
    ids: Option<(AttributeId, AttributeId, AttributeId)>,
}

impl ExecutionCalculation for Dice {
    fn setup(&mut self, setup: &mut CalculationSetup<'_>) {
        let id = |setup: &mut CalculationSetup<'_>, name| setup.attribute(name).unwrap();
        self.ids = Some((
            id(setup, "Potency"),
            id(setup, "Heat"),
            id(setup, "Impurity"),
        ));
    }

    fn execute(&self, cx: &mut ExecutionCx<'_>) {
        use gaskit::rand_chacha::rand_core::Rng;
        let (potency, heat, impurity) = self.ids.unwrap();
        match self.chance {
            None => {
                let draw = cx.uniform();
                cx.output(potency, ModOp::Override, draw);
                let roll = cx.rng().next_u32() % 100;
                cx.output(heat, ModOp::Override, f64::from(roll));
            }
            Some(p) => {
                let hit = cx.chance(p);
                cx.output(impurity, ModOp::Override, if hit { 1.0 } else { 0.0 });
            }
        }
    }
}

/// A brewer's cauldron under `Dice`, seeded `seed`; returns what one roll
/// wrote (Potency, Heat, Impurity).
fn roll_dice(seed: u64, chance: Option<f64>) -> (f64, f64, f64) {
    let mut builder = CatalogBuilder::new();
    builder.add_source(
        "dice.ron",
        r#"(attributes: [(name: "Potency"), (name: "Heat"), (name: "Impurity")],
            effects: [(name: "GE_Dice", executions: ["Dice"])])"#,
    );
    builder.add_execution("Dice", Dice { chance, ids: None });
    let catalog = builder.build().unwrap();
    let mut gas = Gas::with_seed(std::sync::Arc::new(catalog), seed);
    let mut world = World::new();
    let pot = world.spawn((gas.new_ability_system(),));
    let dice = gas.catalog().effects().get("GE_Dice").unwrap();
    gas.apply_effect(&mut world, pot, EffectSpec::new(dice))
        .unwrap();
    let read = |name: &str| {
        let id = gas.catalog().attributes().get(name).unwrap();
        gas.attribute_value(&world, pot, id).unwrap()
    };
    (read("Potency"), read("Heat"), read("Impurity"))
}

/// A calculation draws a uniform number in [0, 1) (the very draw `chance`
/// compares with its probability) and integers through the RNG's own
/// methods, which `gaskit::rand_chacha` brings; both follow the seed.
#[test]
fn a_calculation_draws_uniform_numbers_and_integers_from_the_seeded_stream() {
    let (draw, roll, _) = roll_dice(7, None);
    assert!((0.0..1.0).contains(&draw), "{draw}");
    assert!(
        (0.0..100.0).contains(&roll) && roll.fract() == 0.0,
        "{roll}"
    );
    assert_eq!(roll_dice(7, None), (draw, roll, 0.0), "the same seed");
    assert_ne!(roll_dice(8, None).0, draw, "another seed");
    // `chance(p)` is that first draw below `p`.
    assert_eq!(roll_dice(7, Some(draw)).2, 0.0);
    assert_eq!(roll_dice(7, Some(draw.next_up())).2, 1.0);
}

/// The room left above the cauldron's Impurity: its Durability captured
/// once, less its Impurity followed live.
#[derive(Default)]
struct Headroom {
    cap: Capture,
    now: Capture,
}

impl MagnitudeCalculation for Headroom {
    fn setup(&mut self, setup: &mut CalculationSetup<'_>) {
        self.cap = setup.capture("Durability", CaptureFrom::Target, false);
        self.now = setup.capture("Impurity", CaptureFrom::Target, true);
    }

    fn magnitude(&self, cx: &MagnitudeCx<'_>) -> f64 {
        cx.captured(self.cap) - cx.captured(self.now)
    }
}

/// A full stack re-applied takes the new spec with what its custom
/// magnitude captures of the target once, so the magnitude still follows
/// what it reads live (the short path for a full stack gave it none, and
/// the held modifier stopped following).
#[test]
fn a_full_stack_reapplied_keeps_following_its_live_magnitude() {
    let mut builder = builder();
    builder.add_source(
        "headroom.ron",
        r#"(effects: [(name: "GE_Headroom", duration: Duration(Constant(10)),
            modifiers: [(attribute: "Heat", op: Flat, magnitude: Custom("Headroom"))],
            stacking: (by: Target, limit: 1))])"#,
    );
    builder.add_magnitude("Headroom", Headroom::default());
    let mut gas = Gas::new(builder.build().unwrap());
    let mut world = World::new();
    let cauldron = world.spawn((gas.new_ability_system(),));
    let effect = |name: &str| EffectSpec::new(gas.catalog().effects().get(name).unwrap());
    let (headroom, dirty) = (effect("GE_Headroom"), effect("GE_Dirty"));
    let heat = gas.catalog().attributes().get("Heat").unwrap();
    gas.apply_effect(&mut world, cauldron, headroom.clone())
        .unwrap();
    assert_eq!(gas.attribute_value(&world, cauldron, heat), Some(100.0));
    let again = gas.apply_effect(&mut world, cauldron, headroom).unwrap();
    assert!(
        matches!(again, ApplyOutcome::Stacked { stacks: 1, .. }),
        "{again:?}"
    );
    gas.apply_effect(&mut world, cauldron, dirty).unwrap();
    assert_eq!(
        gas.attribute_value(&world, cauldron, heat),
        Some(96.0),
        "100 - 4"
    );
}

/// A custom magnitude reading its target at a stack's re-application
/// reads it without the stack's own modifiers, as an attribute magnitude
/// does: a graft adding a fifth of the plant's Height gives 12 at one
/// stack and 14 at two, not 14.4 (a fifth of 12, twice).
#[test]
fn a_custom_magnitude_at_a_re_application_reads_the_target_without_the_stack() {
    let mut builder = CatalogBuilder::new();
    builder.add_magnitude(
        "Graft",
        Fraction::of("Height", CaptureFrom::Target, false, 0.2),
    );
    builder.add_source(
        "orchard.ron",
        r#"(
        attributes: [(name: "Height", base: 10)],
        effects: [(name: "GE_Graft", duration: Duration(Constant(10)),
            modifiers: [(attribute: "Height", op: Flat, magnitude: Custom("Graft"))],
            stacking: (by: Target, limit: 3, duration: Refresh))],
    )"#,
    );
    let mut gas = Gas::new(builder.build().unwrap_or_else(|e| panic!("{e}")));
    let mut world = World::new();
    let tree = world.spawn((gas.new_ability_system(),));
    let graft = gas.catalog().effects().get("GE_Graft").unwrap();
    let height = gas.catalog().attributes().get("Height").unwrap();
    for expected in [12.0, 14.0, 16.0] {
        gas.apply_effect(&mut world, tree, EffectSpec::new(graft))
            .unwrap();
        assert_eq!(gas.attribute_value(&world, tree, height), Some(expected));
    }
}
