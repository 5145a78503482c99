//! What the fight report draws, read off the trace: per fighter its
//! health over time, its attacks, its attack cooldown windows, and the
//! spans it spent chasing, stunned or in a modal, its deaths and respawns.

use gaskit::combat::{AttackOutcome, ChasePhase, CombatRecord, DamageType};
use gaskit::scenario::ScenarioRun;
use gaskit::{EntityNames, SimTime, Tag, TraceEvent, TraceKind};

/// How an attack was made.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AttackKind {
    /// A weapon swing (or an autocast, which swings a spell).
    Swing,
    /// A standalone cast.
    Cast,
    /// A cast from the weave queue.
    Weave,
}

/// One resolved attack.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Attack {
    /// When, in seconds.
    pub at: f64,
    /// Swing, cast or weave.
    pub kind: AttackKind,
    /// The damage type (its colour).
    pub damage_type: DamageType,
    /// Hit, miss or blocked.
    pub outcome: AttackOutcome,
}

/// One fighter's fight.
#[derive(Clone, Debug, Default)]
pub struct FighterTimeline {
    /// The fighter's name.
    pub name: String,
    /// Whom it attacked last (for the panel's title).
    pub target: Option<String>,
    /// Health as `(seconds, value)`, a step at every change.
    pub health: Vec<(f64, f64)>,
    /// The top of the health axis: the largest health or maximum seen.
    pub max_health: f64,
    /// Its attacks, in order.
    pub attacks: Vec<Attack>,
    /// Attack cooldown windows, `(stamped, ends)`.
    pub cooldowns: Vec<(f64, f64)>,
    /// Chase spans.
    pub chases: Vec<(f64, f64)>,
    /// Stun spans.
    pub stuns: Vec<(f64, f64)>,
    /// Modal spans (a bank or trade window open).
    pub modals: Vec<(f64, f64)>,
    /// When it died.
    pub deaths: Vec<f64>,
    /// When it respawned.
    pub respawns: Vec<f64>,
}

/// Spans opened and closed by events; one still open at the end closes
/// there.
#[derive(Default)]
struct Spans {
    open: Option<f64>,
    done: Vec<(f64, f64)>,
}

impl Spans {
    fn set(&mut self, at: f64, on: bool) {
        match (self.open, on) {
            (None, true) => self.open = Some(at),
            (Some(from), false) => {
                self.done.push((from, at));
                self.open = None;
            }
            _ => {}
        }
    }

    fn finish(mut self, end: f64) -> Vec<(f64, f64)> {
        if let Some(from) = self.open.take() {
            self.done.push((from, end));
        }
        self.done
    }
}

/// Every fighter of `run`, from `events`, up to `end`.
pub fn read(run: &ScenarioRun, events: &[TraceEvent], end: SimTime) -> Vec<FighterTimeline> {
    let catalog = run.gas.catalog();
    let tags = catalog.tags();
    let attributes = catalog.attributes();
    let health = attributes.get("Health");
    let max_health = attributes.get("MaxHealth");
    let tag = |name: &str| tags.get(name);
    let (stunned, modal, dead) = (
        tag("Status.Stunned"),
        tag("Action.Modal"),
        tag("Status.Dead"),
    );
    let is = |t: Tag, parent: Option<Tag>| parent.is_some_and(|p| t.matches(p));
    let end = end.as_secs_f64();

    let mut fighters = Vec::new();
    for (name, entity) in &run.fighters {
        let entity = *entity;
        let mut line = FighterTimeline {
            name: name.clone(),
            ..FighterTimeline::default()
        };
        let (mut chases, mut stuns, mut modals) =
            (Spans::default(), Spans::default(), Spans::default());
        let mut top: f64 = 0.0;
        for event in events {
            let at = event.time.as_secs_f64();
            match &event.kind {
                TraceKind::AttributeChanged {
                    entity: who,
                    attribute,
                    old,
                    new,
                } if *who == entity => {
                    if Some(*attribute) == health {
                        if line.health.is_empty() {
                            line.health.push((0.0, *old));
                        }
                        line.health.push((at, *old));
                        line.health.push((at, *new));
                        top = top.max(*old).max(*new);
                    } else if Some(*attribute) == max_health {
                        top = top.max(*new);
                    }
                }
                TraceKind::TagChanged {
                    entity: who,
                    tag,
                    present,
                } if *who == entity => {
                    if is(*tag, stunned) {
                        stuns.set(at, *present);
                    } else if is(*tag, modal) {
                        modals.set(at, *present);
                    } else if is(*tag, dead) && *present {
                        line.deaths.push(at);
                    }
                }
                _ => {}
            }
            let Some(record) = event.record::<CombatRecord>() else {
                continue;
            };
            match *record {
                CombatRecord::Attack {
                    attacker,
                    target,
                    outcome,
                    damage_type,
                    weaved,
                    spell,
                } if attacker == entity => {
                    let kind = match (spell, weaved) {
                        (Some(_), true) => AttackKind::Weave,
                        (Some(_), false) => AttackKind::Cast,
                        (None, _) => AttackKind::Swing,
                    };
                    // The fighters keep their names after a despawn, as
                    // the trace does.
                    line.target = Some(run.fighters.as_slice().name_of(target));
                    line.attacks.push(Attack {
                        at,
                        kind,
                        damage_type,
                        outcome,
                    });
                }
                CombatRecord::CooldownStamped {
                    entity: who,
                    duration,
                    ..
                } if who == entity => line.cooldowns.push((at, at + duration.as_secs_f64())),
                CombatRecord::Chase { chaser, phase, .. } if chaser == entity => match phase {
                    ChasePhase::Begin(_) => chases.set(at, true),
                    ChasePhase::End => chases.set(at, false),
                    ChasePhase::Reissue(_) => {}
                },
                CombatRecord::Respawned { entity: who, .. } if who == entity => {
                    line.respawns.push(at)
                }
                _ => {}
            }
        }
        // A fighter whose health never moved: flat at its current value.
        if let (Some(health), true) = (health, line.health.is_empty()) {
            if let Ok(system) = run.world.get::<&gaskit::AbilitySystem>(entity) {
                let value = system.current(health);
                line.health.push((0.0, value));
                top = top.max(value);
            }
        }
        if let Some(&(_, last)) = line.health.last() {
            line.health.push((end, last));
        }
        line.max_health = top.max(1.0);
        line.chases = chases.finish(end);
        line.stuns = stuns.finish(end);
        line.modals = modals.finish(end);
        fighters.push(line);
    }
    fighters
}
