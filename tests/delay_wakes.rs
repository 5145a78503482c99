//! A delay's wake-up and what the woken instance does next, on content that
//! is not combat: a kiln that fires a pot every time its delay elapses.
//!
//! The timer that woke an instance stays pending while the behaviour runs,
//! and a wait for another delay re-arms it. Whatever the behaviour does
//! instead (wait twice, wait for something else, wait for nothing, end,
//! despawn its owner), no wake-up may be lost or doubled, no timer left
//! behind, and a traced run must save the same state as an untraced one.

use std::sync::{Arc, Mutex};

use gaskit::prelude::*;
use gaskit::snapshot::Snapshot;
use hecs::{Entity, World};

const TAGS: &str = "
Pottery.Trigger.Fire
Pottery.Trigger.SecondFire
Pottery.Event.Cooled
Pottery.State.Glowing
";

const CONTENT: &str = r#"(
    attributes: [(name: "Pots", base: 0, min: 0)],
    effects: [
        (name: "GE_Pot", modifiers: [(attribute: "Pots", op: Flat, magnitude: Constant(1))]),
        (name: "GE_Flash", duration: Duration(Constant(0)), granted_tags: ["Pottery.State.Glowing"]),
        (name: "GE_Glaze", modifiers: [(attribute: "Pots", op: Flat, magnitude: Constant(0))]),
    ],
    abilities: [
        (name: "GA_Fire", trigger: "Pottery.Trigger.Fire", behaviour: Registered("Kiln")),
        (name: "GA_SecondFire", trigger: "Pottery.Trigger.SecondFire", behaviour: Registered("Kiln")),
    ],
)"#;

/// What the kiln does when its delay wakes it, by the number of the
/// wake-up (from 1).
#[derive(Clone, Copy, Debug)]
enum Next {
    /// Fires a pot and waits this many seconds for the next.
    Delay(f64),
    /// Waits one delay, then replaces it with another.
    Twice(f64, f64),
    /// Waits for the cooling event.
    Event,
    /// Sets no wait.
    Nothing,
    /// Ends the instance.
    End,
    /// Flashes (an effect that ends lazily the instant it begins), starts
    /// the trace if it is told to, waits a second, then glazes (an instant
    /// effect).
    FlashThenGlaze { trace_on: bool },
    /// Lights the second fire (another instance on the same owner, which
    /// waits for its first delay as it starts), then waits this long.
    LightSecond(f64),
    /// Despawns its owner through the context, then asks for a delay.
    DespawnOwner,
    /// Despawns its owner behind the context's back, then asks for a
    /// delay.
    DropOwner,
}

#[derive(Default)]
struct Log {
    /// Instants of every wake-up, with its reason.
    wakes: Vec<(SimTime, WakeReason)>,
    /// What the instance read as waiting for during each delay wake-up.
    read_in_wake: Vec<Option<Wait>>,
}

struct Kiln {
    plan: fn(usize) -> Next,
    log: Arc<Mutex<Log>>,
}

impl AbilityBehaviour for Kiln {
    fn activate(&self, cx: &mut AbilityCx<'_>) {
        cx.wait_delay(SimDuration::from_millis(500));
    }

    fn wake(&self, cx: &mut AbilityCx<'_>, reason: WakeReason) {
        let count = {
            let mut log = self.log.lock().unwrap();
            log.wakes.push((cx.gas.now(), reason));
            if reason == WakeReason::Delay {
                let read = cx
                    .world
                    .get::<&AbilitySystem>(cx.owner)
                    .ok()
                    .and_then(|s| s.waiting_for(cx.instance));
                log.read_in_wake.push(read);
            }
            log.wakes.len()
        };
        let pot = cx.gas.catalog().effects().get("GE_Pot").unwrap();
        cx.gas
            .apply_effect(cx.world, cx.owner, EffectSpec::new(pot))
            .unwrap();
        let seconds = |s: f64| SimDuration::from_secs_f64(s).unwrap();
        match (self.plan)(count) {
            Next::Delay(s) => cx.wait_delay(seconds(s)),
            Next::Twice(first, then) => {
                cx.wait_delay(seconds(first));
                cx.wait_delay(seconds(then));
            }
            Next::Event => {
                let cooled = cx.gas.catalog().tags().get("Pottery.Event.Cooled").unwrap();
                cx.wait_event(cooled);
            }
            Next::Nothing => {}
            Next::FlashThenGlaze { trace_on } => {
                let effects = cx.gas.catalog().effects();
                let (flash, glaze) = (
                    effects.get("GE_Flash").unwrap(),
                    effects.get("GE_Glaze").unwrap(),
                );
                cx.gas
                    .apply_effect(cx.world, cx.owner, EffectSpec::new(flash))
                    .unwrap();
                if trace_on {
                    cx.gas.trace_mut().set_filter(TraceFilter::ALL);
                }
                cx.wait_delay(seconds(1.0));
                cx.gas
                    .apply_effect(cx.world, cx.owner, EffectSpec::new(glaze))
                    .unwrap();
            }
            Next::LightSecond(s) => {
                let second = cx
                    .gas
                    .catalog()
                    .tags()
                    .get("Pottery.Trigger.SecondFire")
                    .unwrap();
                let owner = cx.owner;
                cx.gas
                    .handle_event(cx.world, owner, GameplayEvent::new(second));
                cx.wait_delay(seconds(s));
            }
            Next::End => cx.end(),
            Next::DespawnOwner => {
                let owner = cx.owner;
                cx.gas.despawn(cx.world, owner);
                cx.wait_delay(seconds(1.0));
            }
            Next::DropOwner => {
                cx.world.despawn(cx.owner).unwrap();
                cx.wait_delay(seconds(1.0));
            }
        }
    }
}

struct Workshop {
    world: World,
    gas: Gas,
    kiln: Entity,
    log: Arc<Mutex<Log>>,
}

impl Workshop {
    /// A kiln started at time zero, woken every half second at first, then
    /// as `plan` says.
    fn new(plan: fn(usize) -> Next) -> Self {
        let mut builder = CatalogBuilder::new();
        builder.tags().add_source("pottery.tags", TAGS);
        builder.add_source("pottery.ron", CONTENT);
        let mut world = World::new();
        let mut gas = Gas::new(builder.build().unwrap());
        let log = Arc::new(Mutex::new(Log::default()));
        gas.register_behaviour(
            "Kiln",
            Kiln {
                plan,
                log: log.clone(),
            },
        )
        .unwrap();
        let kiln = world.spawn((gas.new_ability_system(),));
        for name in ["GA_Fire", "GA_SecondFire"] {
            let fire = gas.catalog().abilities().get(name).unwrap();
            gas.grant_ability(&mut world, kiln, fire, 1).unwrap();
        }
        let trigger = gas.catalog().tags().get("Pottery.Trigger.Fire").unwrap();
        gas.handle_event(&mut world, kiln, GameplayEvent::new(trigger));
        Self {
            world,
            gas,
            kiln,
            log,
        }
    }

    fn at(&mut self, seconds: f64) {
        let to = SimTime::ZERO + SimDuration::from_secs_f64(seconds).unwrap();
        self.gas.advance_to(&mut self.world, to);
    }

    /// Instants of the wake-ups so far, in seconds.
    fn wakes(&self) -> Vec<f64> {
        let log = self.log.lock().unwrap();
        log.wakes
            .iter()
            .map(|(at, _)| at.as_micros() as f64 / 1e6)
            .collect()
    }

    fn pots(&self) -> f64 {
        let pots = self.gas.catalog().attributes().get("Pots").unwrap();
        self.world
            .get::<&AbilitySystem>(self.kiln)
            .unwrap()
            .current(pots)
    }

    /// What the kiln's first fire waits for (`None` when it has ended).
    fn waiting_for(&self) -> Option<Wait> {
        let system = self.world.get::<&AbilitySystem>(self.kiln).ok()?;
        let fire = self.gas.catalog().abilities().get("GA_Fire").unwrap();
        system.waiting_for(system.active_instance(fire)?)
    }

    fn checksum(&self) -> u64 {
        Snapshot::<()>::save(&self.world, &self.gas).checksum()
    }
}

#[test]
fn a_kiln_that_waits_again_at_every_wake_up_fires_on_time_for_good() {
    let mut shop = Workshop::new(|_| Next::Delay(0.5));
    for step in 1..=40 {
        shop.at(step as f64 * 0.25);
        // One timer all along: each wake-up's own, armed again.
        assert_eq!(shop.gas.pending_timers(), 1, "at step {step}");
        assert_eq!(shop.waiting_for(), Some(Wait::Delay));
    }
    let expected: Vec<f64> = (1..=20).map(|n| n as f64 * 0.5).collect();
    assert_eq!(shop.wakes(), expected);
    assert_eq!(shop.pots(), 20.0);
    assert_eq!(
        gaskit::invariants::check(&shop.world, &shop.gas),
        Vec::<String>::new()
    );
}

/// A second instance started inside a wake-up waits for its own delay
/// the long way; the woken one still re-arms its own. Both keep time.
#[test]
fn an_instance_started_in_a_wake_up_keeps_its_own_delay() {
    // The first fire wakes at 0.5 and every 0.5 s; lit at 0.5, the second
    // first wakes half a second later and then every 0.5 s.
    let mut shop = Workshop::new(|n| {
        if n == 1 {
            Next::LightSecond(0.5)
        } else {
            Next::Delay(0.5)
        }
    });
    shop.at(3.0);
    let mut expected = vec![0.5];
    for n in 2..=6 {
        expected.extend([n as f64 * 0.5; 2]);
    }
    assert_eq!(shop.wakes(), expected);
    assert_eq!(shop.gas.pending_timers(), 2);
}

#[test]
fn waiting_twice_in_one_wake_up_keeps_only_the_second_delay() {
    // Woken at 0.5: waits 1 s, then 3 s instead; then every 3 s.
    let mut shop = Workshop::new(|n| {
        if n == 1 {
            Next::Twice(1.0, 3.0)
        } else {
            Next::Delay(3.0)
        }
    });
    shop.at(7.0);
    assert_eq!(shop.wakes(), vec![0.5, 3.5, 6.5]);
    assert_eq!(shop.gas.pending_timers(), 1);
}

#[test]
fn a_wake_up_that_waits_for_an_event_leaves_no_delay_behind() {
    let mut shop = Workshop::new(|n| if n == 1 { Next::Event } else { Next::Nothing });
    shop.at(5.0);
    assert_eq!(shop.wakes(), vec![0.5]);
    assert_eq!(shop.gas.pending_timers(), 0);
    let cooled = shop
        .gas
        .catalog()
        .tags()
        .get("Pottery.Event.Cooled")
        .unwrap();
    assert_eq!(shop.waiting_for(), Some(Wait::Event(cooled)));
    let kiln = shop.kiln;
    shop.gas
        .handle_event(&mut shop.world, kiln, GameplayEvent::new(cooled));
    let log = shop.log.lock().unwrap();
    assert_eq!(log.wakes.len(), 2);
    assert!(matches!(log.wakes[1].1, WakeReason::Event(event) if event.tag == cooled));
}

#[test]
fn a_wake_up_that_sets_no_wait_leaves_its_instance_waiting_for_nothing() {
    let mut shop = Workshop::new(|_| Next::Nothing);
    shop.at(5.0);
    assert_eq!(shop.wakes(), vec![0.5]);
    assert_eq!(shop.waiting_for(), Some(Wait::Nothing));
    assert_eq!(shop.gas.pending_timers(), 0);
    assert_eq!(
        gaskit::invariants::check(&shop.world, &shop.gas),
        Vec::<String>::new()
    );
}

#[test]
fn a_wake_up_that_ends_its_instance_leaves_no_timer() {
    let mut shop = Workshop::new(|n| if n < 3 { Next::Delay(1.0) } else { Next::End });
    shop.at(10.0);
    assert_eq!(shop.wakes(), vec![0.5, 1.5, 2.5]);
    assert_eq!(shop.waiting_for(), None);
    assert_eq!(shop.gas.pending_timers(), 0);
}

#[test]
fn an_owner_despawned_in_its_wake_up_leaves_no_timer_either_way() {
    for plan in [(|_| Next::DespawnOwner) as fn(usize) -> Next, |_| {
        Next::DropOwner
    }] {
        let mut shop = Workshop::new(plan);
        // Right after the wake-up: the delay it asked for is not pending.
        shop.at(0.5);
        assert!(!shop.world.contains(shop.kiln));
        assert_eq!(shop.wakes(), vec![0.5]);
        assert_eq!(shop.gas.pending_timers(), 0);
        shop.at(5.0);
        assert_eq!(shop.wakes(), vec![0.5]);
    }
}

#[test]
fn during_its_wake_up_an_instance_still_reads_as_waiting_for_its_delay() {
    let mut shop = Workshop::new(|n| {
        if n < 2 {
            Next::Delay(1.0)
        } else {
            Next::Nothing
        }
    });
    shop.at(5.0);
    let log = shop.log.lock().unwrap();
    assert_eq!(log.read_in_wake, vec![Some(Wait::Delay); 2]);
    drop(log);
    // Once the wake-up that set no wait has returned, it waits for nothing.
    assert_eq!(shop.waiting_for(), Some(Wait::Nothing));
}

/// Waiting again the long way catches the owner up first, which on a
/// watched owner tells a lazy end due: so must the re-armed wait. The flash
/// ends the instant it begins, and its end is told before what the
/// wake-up does after waiting, whether the owner was watched all along or
/// the trace began in the wake-up (when no notice of the end is pending).
#[test]
fn a_lazy_end_due_when_the_delay_is_re_armed_is_told_at_once() {
    for traced_from_start in [true, false] {
        let plan: fn(usize) -> Next = if traced_from_start {
            |n| {
                if n == 1 {
                    Next::FlashThenGlaze { trace_on: false }
                } else {
                    Next::Nothing
                }
            }
        } else {
            |n| {
                if n == 1 {
                    Next::FlashThenGlaze { trace_on: true }
                } else {
                    Next::Nothing
                }
            }
        };
        let mut shop = Workshop::new(plan);
        if !traced_from_start {
            shop.gas.trace_mut().set_filter(TraceFilter::NONE);
        }
        shop.at(2.0);
        let effects = shop.gas.catalog().effects();
        let (flash, glaze) = (
            effects.get("GE_Flash").unwrap(),
            effects.get("GE_Glaze").unwrap(),
        );
        let position = |wanted: &dyn Fn(&TraceKind) -> bool| {
            shop.gas
                .trace()
                .events()
                .iter()
                .position(|e| wanted(&e.kind))
        };
        let flash_ended =
            position(&|k| matches!(k, TraceKind::EffectRemoved { effect, .. } if *effect == flash));
        let glazed = position(
            &|k| matches!(k, TraceKind::EffectExecuted { effect, .. } if *effect == glaze),
        );
        // Told, and before the glaze.
        assert!(
            flash_ended.is_some() && flash_ended < glazed,
            "traced from the start: {traced_from_start}: {flash_ended:?} {glazed:?}"
        );
        assert_eq!(shop.wakes(), vec![0.5, 1.5]);
    }
}

#[test]
fn a_traced_and_an_untraced_kiln_save_the_same_state() {
    let plan = |n: usize| match n % 4 {
        0 => Next::Twice(0.2, 0.7),
        _ => Next::Delay(0.3 + 0.1 * n as f64),
    };
    let mut traced = Workshop::new(plan);
    let mut quiet = Workshop::new(plan);
    quiet.gas.trace_mut().set_filter(TraceFilter::NONE);
    for step in 1..=30 {
        let at = step as f64 * 0.4;
        traced.at(at);
        quiet.at(at);
        assert_eq!(traced.checksum(), quiet.checksum(), "at {at} s");
    }
    assert_eq!(traced.wakes(), quiet.wakes());
    assert!(traced.wakes().len() > 10);
}

/// A wake-up that flashes (a lazy end due at once) and then waits again
/// takes the long way on a traced kiln, which tells the end first, and
/// the short way on a quiet one. Both must keep the delay's timer under
/// the same key: the long way cancelled it and scheduled a new one, so
/// the two saves (and checksums, which peers with different trace
/// settings compare) differed from then on.
#[test]
fn a_traced_and_an_untraced_kiln_save_the_same_state_when_a_lazy_end_is_due() {
    let plan = |n: usize| {
        if n % 2 == 1 {
            Next::FlashThenGlaze { trace_on: false }
        } else {
            Next::Delay(0.4)
        }
    };
    let mut traced = Workshop::new(plan);
    let mut quiet = Workshop::new(plan);
    quiet.gas.trace_mut().set_filter(TraceFilter::NONE);
    for step in 1..=20 {
        let at = step as f64 * 0.3;
        traced.at(at);
        quiet.at(at);
        assert_eq!(traced.checksum(), quiet.checksum(), "at {at} s");
    }
    assert_eq!(traced.wakes(), quiet.wakes());
    assert!(traced.wakes().len() > 5);
}

#[test]
fn a_kiln_saved_between_wake_ups_and_restored_fires_at_the_same_instants() {
    let plan = |n: usize| {
        if n % 3 == 0 {
            Next::Twice(0.1, 0.9)
        } else {
            Next::Delay(0.6)
        }
    };
    let mut reference = Workshop::new(plan);
    reference.at(12.0);
    let mut first = Workshop::new(plan);
    first.at(4.3);
    let text = Snapshot::<()>::save(&first.world, &first.gas)
        .to_ron()
        .unwrap();
    let mut second = Workshop::new(plan);
    Snapshot::<()>::from_ron(&text)
        .unwrap()
        .restore(&mut second.world, &mut second.gas)
        .unwrap();
    second.log.lock().unwrap().wakes = first.log.lock().unwrap().wakes.clone();
    second.at(12.0);
    assert_eq!(second.wakes(), reference.wakes());
    assert_eq!(second.checksum(), reference.checksum());
}
