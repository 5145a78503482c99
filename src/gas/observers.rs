//! Observers: game code reacting to what happened (VFX, sound, UI, quest
//! logic, AI, and rules such as combat's post-execute step), without
//! polling.
//!
//! # The shape, and why
//!
//! An observer is a callback registered with a filter ([`Observe`]). What
//! happens is queued as it happens, in the order of the trace, and
//! delivered at the end of the context call that produced it (after its
//! reconcile), first in, first out: an observer that acts (applies an
//! effect, sends an event) queues what its action causes behind what was
//! already waiting, so every observer sees observations in exactly the
//! trace's order. Delivery is not nested: a call made from inside an
//! observer delivers nothing itself; the outer delivery loop picks up what
//! it caused.
//!
//! Callbacks rather than a drained event stream, because some observers
//! are rules that must act before the simulation moves on (combat's death
//! at zero health must land before the next swing at the same instant);
//! a stream is one observer away (push into a queue the game drains).
//! Nothing is queued for a kind nobody observes, so an unobserved kind
//! costs one mask test, and a world with no observer queues nothing.

use std::any::TypeId;
use std::sync::Arc;

use hecs::{Entity, World};

use super::Gas;
use crate::abilities::AbilitySystem;
use crate::attributes::AttributeId;
use crate::effects::Execution;
use crate::tags::Tag;
use crate::trace::{Observation, TraceCategory, TraceFilter, TraceKind, TraceRecord};

/// Where an attribute's threshold lies.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Threshold {
    /// A fixed value.
    Value(f64),
    /// A fraction of another attribute's current value, read when the
    /// change is delivered (`Health` below 25 % of `MaxHealth`); never
    /// met for an entity that does not hold that attribute.
    FractionOf {
        /// The attribute the fraction is of.
        attribute: AttributeId,
        /// The fraction, `0.25` for a quarter.
        fraction: f64,
    },
}

/// What an observer is told about: one kind of happening, optionally on
/// one entity.
///
/// ```
/// use gaskit::prelude::*;
/// use gaskit::{Observation, Observe, Threshold};
///
/// let mut builder = CatalogBuilder::new();
/// builder.add_source("game.ron", r#"(
///     attributes: [(name: "MaxHealth", base: 100), (name: "Health", base: 100, max: "MaxHealth")],
///     effects: [(name: "GE_Hit", modifiers: [(attribute: "Health", op: Flat, magnitude: Constant(-30))])],
/// )"#);
/// let mut gas = Gas::new(builder.build().unwrap());
/// let mut world = hecs::World::new();
/// let hero = world.spawn((gas.new_ability_system(),));
/// let health = gas.catalog().attributes().get("Health").unwrap();
/// let max = gas.catalog().attributes().get("MaxHealth").unwrap();
///
/// // Low health: told once, when Health drops below a quarter of MaxHealth.
/// let warnings = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
/// let count = warnings.clone();
/// let low = Threshold::FractionOf { attribute: max, fraction: 0.25 };
/// gas.observe(Observe::below(health, low).of(hero), move |_world, _gas, _seen| {
///     count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
/// });
///
/// let hit = EffectSpec::new(gas.catalog().effects().get("GE_Hit").unwrap());
/// for _ in 0..3 {
///     gas.apply_effect(&mut world, hero, hit.clone()).unwrap(); // 70, 40, 10
/// }
/// assert_eq!(warnings.load(std::sync::atomic::Ordering::Relaxed), 1);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Observe {
    what: What,
    on: Option<Entity>,
}

#[derive(Clone, Debug, PartialEq)]
enum What {
    Everything,
    Category(TraceCategory),
    Cue(Tag),
    Attribute(AttributeId),
    Below(AttributeId, Threshold),
    TagAdded(Tag),
    TagRemoved(Tag),
    Executions,
    Record(TypeId, TraceCategory),
}

impl Observe {
    fn of_kind(what: What) -> Self {
        Observe { what, on: None }
    }

    /// Every event and every execution.
    pub fn everything() -> Self {
        Self::of_kind(What::Everything)
    }

    /// Every event of a category (the core's or a game module's).
    pub fn category(category: TraceCategory) -> Self {
        Self::of_kind(What::Category(category))
    }

    /// Gameplay cues under `tag` (parent-aware: `GameplayCue.Hit` sees
    /// `GameplayCue.Hit.Fire`), with their source, target, effect event.
    pub fn cue(tag: Tag) -> Self {
        Self::of_kind(What::Cue(tag))
    }

    /// Every change of an attribute's current value.
    pub fn attribute(attribute: AttributeId) -> Self {
        Self::of_kind(What::Attribute(attribute))
    }

    /// An attribute crossing below a threshold (from at or above it to
    /// below it): once per crossing, not on every change below.
    pub fn below(attribute: AttributeId, threshold: Threshold) -> Self {
        Self::of_kind(What::Below(attribute, threshold))
    }

    /// An owned tag appearing (parent-aware: `Status` sees
    /// `Status.Stunned`).
    pub fn tag_added(tag: Tag) -> Self {
        Self::of_kind(What::TagAdded(tag))
    }

    /// An owned tag vanishing (parent-aware).
    pub fn tag_removed(tag: Tag) -> Self {
        Self::of_kind(What::TagRemoved(tag))
    }

    /// Effects applied, stacked, executed, blocked, inhibited, removed.
    pub fn effects() -> Self {
        Self::category(TraceCategory::EFFECTS)
    }

    /// Abilities activated, refused and ended.
    pub fn abilities() -> Self {
        Self::category(TraceCategory::ABILITIES)
    }

    /// Every instant or periodic execution, with what it did: the
    /// post-execute step ([`Observation::Execution`]).
    pub fn executions() -> Self {
        Self::of_kind(What::Executions)
    }

    /// A game module's records of type `R`, recorded under `category`.
    pub fn records<R: TraceRecord>(category: TraceCategory) -> Self {
        Self::of_kind(What::Record(TypeId::of::<R>(), category))
    }

    /// Only what happens to `entity` (an event's subject, an execution's
    /// target).
    pub fn of(mut self, entity: Entity) -> Self {
        self.on = Some(entity);
        self
    }

    /// The trace categories this filter needs queued.
    fn categories(&self) -> TraceFilter {
        match self.what {
            What::Everything => TraceFilter::ALL,
            What::Category(c) | What::Record(_, c) => c.into(),
            What::Cue(_) => TraceCategory::CUES.into(),
            What::Attribute(_) | What::Below(..) => TraceCategory::ATTRIBUTES.into(),
            What::TagAdded(_) | What::TagRemoved(_) => TraceCategory::TAGS.into(),
            What::Executions => TraceFilter::NONE,
        }
    }

    fn wants_executions(&self) -> bool {
        matches!(self.what, What::Everything | What::Executions)
    }

    /// True when `seen` is for this observer.
    fn matches(&self, world: &World, seen: &Observation) -> bool {
        if self.on.is_some_and(|on| on != seen.subject()) {
            return false;
        }
        let event = match seen {
            Observation::Execution { .. } => return self.wants_executions(),
            Observation::Event(event) => event,
        };
        match (&self.what, &event.kind) {
            (What::Everything, _) => true,
            (What::Category(c), kind) => kind.category() == *c,
            (What::Cue(tag), TraceKind::Cue { cue, .. }) => cue.matches(*tag),
            (What::Attribute(a), TraceKind::AttributeChanged { attribute, .. }) => attribute == a,
            (
                What::Below(a, threshold),
                TraceKind::AttributeChanged {
                    entity,
                    attribute,
                    old,
                    new,
                },
            ) if attribute == a => {
                let limit = match *threshold {
                    Threshold::Value(v) => v,
                    Threshold::FractionOf {
                        attribute,
                        fraction,
                    } => match world.get::<&AbilitySystem>(*entity) {
                        // An attribute the entity does not hold (another
                        // catalog's) has no value to take a fraction of.
                        Ok(system) if system.attributes().holds(attribute) => {
                            system.current(attribute) * fraction
                        }
                        _ => return false,
                    },
                };
                *old >= limit && *new < limit
            }
            (
                What::TagAdded(wanted),
                TraceKind::TagChanged {
                    tag, present: true, ..
                },
            )
            | (
                What::TagRemoved(wanted),
                TraceKind::TagChanged {
                    tag,
                    present: false,
                    ..
                },
            ) => tag.matches(*wanted),
            (What::Record(type_id, category), TraceKind::Game(record)) => {
                let any: &dyn std::any::Any = &**record;
                any.type_id() == *type_id && record.category() == *category
            }
            _ => false,
        }
    }
}

/// A registered observer's callback.
pub(super) type Callback = dyn Fn(&mut World, &mut Gas, &Observation) + Send + Sync;

/// Most observations one delivery hands out (with all they cause) before
/// the rest is dropped: far above what settling content causes, and
/// reached in a fraction of a second by an observer that keeps causing
/// what it observes.
pub(super) const DELIVERY_LIMIT: u32 = 1 << 16;

/// One registered observer.
pub(super) struct Registered {
    id: ObserverId,
    what: Observe,
    callback: Arc<Callback>,
}

/// A registered observer, as [`Gas::observe`] returns it: what
/// [`Gas::unobserve`] takes to remove it. Numbered in registration order
/// by its context, and never reused.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObserverId(u64);

impl Gas {
    /// Calls `observer` for everything `what` selects, in the trace's
    /// order, at the end of the context call that caused it (after its
    /// reconcile). Delivery is first in, first out and never nested: what
    /// an observer's own action causes is queued behind what was already
    /// waiting, so every observer sees observations in the trace's order.
    /// Observers run in registration order for each observation; one
    /// registered while observations are being delivered sees the ones
    /// that follow. Returns the observer's id, for
    /// [`unobserve`](Self::unobserve).
    pub fn observe(
        &mut self,
        what: Observe,
        observer: impl Fn(&mut World, &mut Gas, &Observation) + Send + Sync + 'static,
    ) -> ObserverId {
        let id = ObserverId(self.observers_registered);
        self.observers_registered += 1;
        let mut observers: Vec<Arc<Registered>> = self.observers.get().iter().cloned().collect();
        observers.push(Arc::new(Registered {
            id,
            what,
            callback: Arc::new(observer),
        }));
        self.observers.set(observers.into());
        self.refresh_interest();
        id
    }

    /// Removes an observer (one watching an entity that has left, a UI
    /// panel closed): it hears nothing from the next observation on, and
    /// what only it asked for is no longer queued (nor, for lazy ends,
    /// told at its instant). `false` when `id` is not registered (removed
    /// already, or another context's).
    pub fn unobserve(&mut self, id: ObserverId) -> bool {
        let observers = self.observers.get();
        if !observers.iter().any(|o| o.id == id) {
            return false;
        }
        let kept: Vec<Arc<Registered>> = observers.iter().filter(|o| o.id != id).cloned().collect();
        self.observers.set(kept.into());
        self.refresh_interest();
        true
    }

    /// The queue asks only for what some observer selects.
    fn refresh_interest(&mut self) {
        let mut categories = TraceFilter::NONE;
        let mut executions = false;
        for observer in self.observers.get().iter() {
            categories = categories | observer.what.categories();
            executions |= observer.what.wants_executions();
        }
        self.trace.set_observed(categories);
        self.observe_executions = executions;
    }

    /// Queues a copy of an execution for the observers that want executions.
    #[inline]
    pub(super) fn observe_execution(&mut self, target: Entity, execution: &Execution) {
        if self.observe_executions {
            self.observe_owned_execution(target, execution.clone());
        }
    }

    /// Queues an execution for the observers that want executions (or
    /// drops it).
    pub(super) fn observe_owned_execution(&mut self, target: Entity, execution: Execution) {
        if self.observe_executions {
            self.trace
                .observe(Observation::Execution { target, execution });
        }
    }

    /// Delivers everything queued, first in, first out, until the queue is
    /// empty; what observers cause is queued behind and delivered in turn.
    /// Does nothing when called from inside a delivery.
    #[inline]
    pub(super) fn deliver(&mut self, world: &mut World) {
        if self.delivering || !self.trace.has_observations() {
            return;
        }
        self.deliver_queued(world);
    }

    /// Past the delivery budget: records it, naming `entity`, and drops
    /// what is still queued, the record too (an observer of everything
    /// would only start again on it).
    #[cold]
    fn drop_undelivered(&mut self, entity: Entity) {
        self.record(TraceKind::ReactionLimit {
            entity,
            limit: DELIVERY_LIMIT,
        });
        drop(self.trace.take_observations());
    }

    /// The delivery loop, out of line of every context call's end.
    ///
    /// An observer that causes what it observes (re-applying the effect
    /// whose cue it hears) would keep it going for ever: past
    /// [`DELIVERY_LIMIT`] observations in one delivery, what is still
    /// queued is dropped, the trace records it (a
    /// [`ReactionLimit`](crate::TraceKind::ReactionLimit) naming the
    /// entity the last one was about, delivered to no observer), and the
    /// call returns.
    #[inline(never)]
    fn deliver_queued(&mut self, world: &mut World) {
        self.delivering = true;
        let mut observers = self.observers.lend();
        let mut delivered = 0u32;
        // Batch by batch, each in order: what a batch's observers and
        // reconciles cause queues behind it, as it would behind one queue.
        let mut unsettled = None;
        while unsettled.is_none() && self.trace.has_observations() {
            let batch = self.trace.take_observations();
            // An observer that restores a snapshot abandons the timeline
            // this batch belongs to: nothing more of it is handed out.
            let restores = self.restores;
            'batch: for seen in &batch {
                if delivered == DELIVERY_LIMIT {
                    unsettled = Some(match seen {
                        Observation::Event(event) => event.kind.parties().0,
                        Observation::Execution { target, .. } => *target,
                    });
                    break;
                }
                delivered += 1;
                // One registered by an observer hears what follows.
                if !Arc::ptr_eq(&observers, self.observers.get()) {
                    observers = self.observers.lend();
                }
                for observer in observers.iter() {
                    if observer.what.matches(world, seen) {
                        (observer.callback)(world, self, seen);
                        if self.restores != restores {
                            break 'batch;
                        }
                    }
                }
                // What the observers changed is reconciled before the next one.
                self.reconcile_only(world);
            }
            self.trace.recycle_observations(batch);
        }
        if let Some(entity) = unsettled {
            self.drop_undelivered(entity);
        }
        self.observers.give_back(observers);
        self.delivering = false;
    }
}
