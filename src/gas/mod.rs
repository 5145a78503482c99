//! [`Gas`]: the context that sits next to the game's `hecs::World`.
//!
//! It holds the catalog, the clock, the timer queue, the RNG, the trace and
//! the hooks. Systems are plain functions over `&mut World` plus this
//! context, the hecs idiom. Every change runs through it, and advancing the
//! clock is the only way time passes.

mod abilities;
mod activation;
mod effects;
mod ending;
mod follow_ups;
mod hooks;
mod lazy_ends;
mod lent;
mod loose_tags;
mod observers;
mod prefetch;
mod reconcile;
mod reserved;
mod scheduled;
mod state;
mod waits;

use std::collections::VecDeque;
use std::sync::Arc;

use hecs::{Entity, World};
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha8Rng;
use smallvec::SmallVec;

pub use abilities::{AbilityError, EventOutcome};
pub use hooks::EffectHook;
pub use observers::{Observe, ObserverId, Threshold};
pub use prefetch::{
    prefetch_component, prefetch_effect_host, reach_nothing, read_ability_system, Prefetch,
    ReachReader, WakeReader,
};
pub(crate) use reserved::in_play;
pub use reserved::Reserved;
pub(crate) use scheduled::{SavedTimer, Timer};
pub(crate) use state::GasState;

use crate::abilities::{AbilityBehaviour, AbilitySystem};
use crate::attributes::{AttributeError, AttributeId, Attributes, ProfileId};
use crate::catalog::Catalog;
use crate::effects::{CueEvent, Execution, FollowUp, LazyEnds};
use crate::tags::{Tag, TagSet};
use crate::time::{SimDuration, SimTime, TimerKey, TimerQueue};
use crate::trace::{Observation, Trace, TraceCategory, TraceKind, TraceRecord};
use lent::Lent;

/// A registered invariant check.
type InvariantCheck = dyn Fn(&World, &Gas, &mut Vec<String>) + Send + Sync;

/// How far an [`advance_to`](Gas::advance_to) got.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Advance {
    /// The clock reached the time asked for.
    Reached,
    /// The call's work limit stopped it at this instant: call again.
    Stopped {
        /// Where the clock stands.
        at: SimTime,
    },
}

/// Bounds on the work of one [`Gas::advance_to`], so that no content (a
/// zero-length loop, an endless chain at one instant, a request to advance
/// to the end of time) can hang the caller. The defaults are far above
/// what any real frame does.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct WorkLimits {
    /// Timers handled at one instant before what is still due is handed to
    /// the next microsecond.
    pub per_instant: u64,
    /// Timers handled by one call before it stops early. It stops only
    /// once a timer's reactions have run, never between two ends of one
    /// instant, so it may run past this by the rest of an instant's ends
    /// (at most `per_instant`).
    pub per_call: u64,
}

impl Default for WorkLimits {
    fn default() -> Self {
        WorkLimits {
            per_instant: 16_000_000,
            per_call: 100_000_000,
        }
    }
}

/// The gaskit context: catalog, clock, timers, RNG, trace and hooks.
///
/// ```
/// use gaskit::prelude::*;
///
/// let mut world = hecs::World::new();
/// let mut builder = CatalogBuilder::new();
/// builder.add_source("game.ron", r#"(
///     attributes: [(name: "Mana", base: 100, min: 0)],
///     effects: [(name: "GE_Drain", modifiers: [(attribute: "Mana", op: Flat, magnitude: Constant(-30))])],
/// )"#);
/// let mut gas = Gas::new(builder.build().unwrap());
/// let hero = world.spawn((gas.new_ability_system(),));
///
/// let mana = gas.catalog().attributes().get("Mana").unwrap();
/// let drain = gas.catalog().effects().get("GE_Drain").unwrap();
/// gas.apply_effect(&mut world, hero, EffectSpec::new(drain)).unwrap();
/// assert_eq!(world.get::<&AbilitySystem>(hero).unwrap().current(mana), 70.0);
/// ```
pub struct Gas {
    catalog: Arc<Catalog>,
    now: SimTime,
    timers: TimerQueue<Timer>,
    /// The gameplay events queued timers deliver.
    queued_events: scheduled::QueuedEvents,
    rng: ChaCha8Rng,
    trace: Trace,
    /// Observers, in registration order (shared so delivery can call them
    /// while they register more; lent to it without a new handle).
    observers: Lent<[Arc<observers::Registered>]>,
    /// Observers ever registered: the next one's id.
    observers_registered: u64,
    /// Some observer wants executions.
    observe_executions: bool,
    /// Observations are being delivered: nested calls deliver nothing.
    delivering: bool,
    /// Restores so far (wrapping): a delivery that sees it move stops
    /// handing out the batch of the timeline the restore abandoned.
    restores: u32,
    /// Entities whose [`despawn`](Self::despawn) is running their
    /// teardowns (innermost last): nothing starts on them or aimed at
    /// them, since it would outlive them.
    departing: SmallVec<[Entity; 1]>,
    /// Checks game modules added to [`crate::invariants::check`].
    invariants: Vec<Arc<InvariantCheck>>,
    /// Registered behaviours, indexed by the catalog's behaviour names
    /// (lent to each call without a new handle).
    behaviours: Vec<Option<Lent<dyn AbilityBehaviour>>>,
    /// Entities queued for the next reconcile (a change to their tags that
    /// something reacts to, or a change of state an instance waits on), in
    /// the order they were queued.
    dirty: VecDeque<Entity>,
    /// Work effect operations left (conditional and ending effects to
    /// apply, abilities to grant or revoke), done in order by the
    /// reconcile that ends the call.
    follow_ups: VecDeque<(Entity, FollowUp)>,
    /// Follow-up applications the current operation may still cause.
    follow_up_budget: u32,
    /// Entity reconciles (reactions to tags and state) the current
    /// operation may still run: content whose reactions never settle
    /// stops here.
    reaction_budget: u32,
    /// Nesting of reconciles: the budget refills when the outermost ends.
    reconcile_depth: u32,
    /// Entities holding effects that read attributes live, sorted.
    live_holders: Vec<Entity>,
    /// Some attribute changed since the last reconcile.
    attributes_moved: bool,
    /// The entities whose attributes moved since live captures were last
    /// refreshed, noted while any entity holds a live capture (not saved:
    /// empty at every step's boundary). A refresh re-reads only the
    /// holders that read one of them.
    moved: Vec<Entity>,
    /// The entities whose attributes a live capture reads (each holder,
    /// and the sources its live effects read), sorted: a refresh whose
    /// moves touch none of them has nothing to re-read. A superset of the
    /// truth (kept from each application, rebuilt at each refresh pass);
    /// `None` when unknown (after a restore), until a pass rebuilds it.
    live_readers: Option<Vec<Entity>>,
    /// The ends of lazily ending effects on watched hosts, told at their
    /// instants (not state: rebuilt from the hosts, see `lazy_ends.rs`).
    lazy_ends: LazyEnds,
    /// The trace's count of filter changes when `lazy_ends` was last
    /// brought in line with what it records or observes: when it has
    /// changed and the trace wants effects or tags, the notices are
    /// rebuilt.
    lazy_ends_trace_seen: u64,
    /// Every tag an instance has waited on as an event (grows only): with
    /// the catalog's triggers, what an event must match to be heard at all.
    waited_events: TagSet,
    /// By ability id: has the ability been granted to some entity (grows
    /// only)? An event whose triggers no entity was ever granted wakes
    /// nothing and activates nothing, so it needs no look at its target.
    ever_granted: Vec<bool>,
    /// Bounds on one `advance_to`'s work.
    limits: WorkLimits,
    /// Whether `advance_to` prefetches for its coming timers.
    prefetch: Prefetch,
    /// How its prefetch stage reads the entities those timers will wake.
    wake_reader: WakeReader,
    /// How its prefetch stage asks for what those wake-ups reach through
    /// their entities' components.
    reach_reader: ReachReader,
    /// Timers handled at the current instant (which instant, how many).
    instant_work: (SimTime, u64),
    /// Timers an overloaded instant handed to the next microsecond.
    deferred_timers: u64,
    /// The last instant whose work budget ran out: a lazy end due by it
    /// and still untold is told at the microsecond after it. Saved (as
    /// whether it is the save's own instant), so a restore tells those
    /// ends when the saved run does.
    budget_spent: Option<SimTime>,
    /// How long despawned entities' handles are kept for rollbacks.
    rollback_window: Option<SimDuration>,
    /// The handles being kept.
    reserved: reserved::ReservedHandles,
    /// The instance a delay is waking, while its behaviour runs.
    waking: Option<waits::Waking>,
    /// The execution an instant application left, until what follows it
    /// takes it (see `effects::Applied`); empty between applications.
    instant: Option<Execution>,
}

impl Gas {
    /// A context over `catalog`, at time zero, with RNG seed 0 and full tracing.
    pub fn new(catalog: impl Into<Arc<Catalog>>) -> Self {
        Self::with_seed(catalog, 0)
    }

    /// A context whose RNG starts from `seed`.
    pub fn with_seed(catalog: impl Into<Arc<Catalog>>, seed: u64) -> Self {
        let catalog: Arc<Catalog> = catalog.into();
        Self {
            lazy_ends: LazyEnds::default(),
            // Nothing to notice yet, whatever the trace wants.
            lazy_ends_trace_seen: 0,
            waited_events: TagSet::new(),
            ever_granted: vec![false; catalog.abilities().len()],
            behaviours: std::iter::repeat_with(|| None)
                .take(catalog.abilities().behaviour_count())
                .collect(),
            catalog,
            now: SimTime::ZERO,
            timers: TimerQueue::new(),
            queued_events: scheduled::QueuedEvents::new(),
            rng: ChaCha8Rng::seed_from_u64(seed),
            trace: Trace::new(),
            observers: Lent::new(Arc::new([])),
            observers_registered: 0,
            observe_executions: false,
            delivering: false,
            restores: 0,
            departing: SmallVec::new(),
            invariants: Vec::new(),
            dirty: VecDeque::new(),
            follow_ups: VecDeque::new(),
            follow_up_budget: follow_ups::FOLLOW_UP_LIMIT,
            reaction_budget: reconcile::REACTION_LIMIT,
            reconcile_depth: 0,
            live_holders: Vec::new(),
            attributes_moved: false,
            moved: Vec::new(),
            live_readers: None,
            limits: WorkLimits::default(),
            prefetch: Prefetch::default(),
            wake_reader: prefetch::read_ability_system,
            reach_reader: prefetch::reach_nothing,
            instant_work: (SimTime::ZERO, 0),
            deferred_timers: 0,
            budget_spent: None,
            rollback_window: None,
            reserved: reserved::ReservedHandles::new(),
            waking: None,
            instant: None,
        }
    }

    /// The catalog.
    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// The shared catalog handle.
    pub fn catalog_arc(&self) -> &Arc<Catalog> {
        &self.catalog
    }

    /// When a pending timer of the context is due (an ability's delay),
    /// for inspection; `None` when it is not pending.
    pub(crate) fn timer_due(&self, key: TimerKey) -> Option<SimTime> {
        self.timers.due(key)
    }

    /// The current simulated time.
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// The trace.
    pub fn trace(&self) -> &Trace {
        &self.trace
    }

    /// The trace, to filter, clear or take. Change it in place (its
    /// filter, its capacity): a trace put in its place wholesale does not
    /// know what the registered observers asked it to keep for them, and
    /// they would hear nothing more.
    pub fn trace_mut(&mut self) -> &mut Trace {
        &mut self.trace
    }

    /// Records `kind` in the trace at the current instant (if its category
    /// is recorded).
    pub fn record(&mut self, kind: TraceKind) {
        self.trace.record(self.now, kind);
    }

    /// Records a game module's (or game code's) own event at the current
    /// instant. When its category is filtered out nothing is stored or
    /// allocated.
    ///
    /// The record is an argument, so it is built before the trace is
    /// asked whether it wants it. On a path that runs at every step,
    /// [`record_game_with`](Self::record_game_with) builds it only when
    /// it is wanted.
    // Inlined, with the storing out of line: a game records at every
    // step (an attack, a stamped cooldown), mostly into a trace that keeps
    // none of it.
    #[inline]
    pub fn record_game(&mut self, record: impl TraceRecord) {
        if self.trace.wants(record.category()) {
            self.keep_game(record);
        }
    }

    /// [`record_game`](Self::record_game) of the record `build` makes,
    /// made only when the trace records or an observer watches
    /// `category`, which must be the record's own
    /// ([`TraceRecord::category`]; checked in debug builds). For a record
    /// on a path that runs at every step (an attack, a stamped cooldown):
    /// a record passed to `record_game` is built, fields copied into it,
    /// whether or not anything keeps it.
    #[inline]
    pub fn record_game_with<R: TraceRecord>(
        &mut self,
        category: TraceCategory,
        build: impl FnOnce() -> R,
    ) {
        if self.trace.wants(category) {
            let record = build();
            debug_assert_eq!(
                record.category(),
                category,
                "record_game_with: the record's category is not the one given"
            );
            self.keep_game(record);
        }
    }

    /// [`record_game`](Self::record_game)'s storing, for a wanted record.
    #[inline(never)]
    fn keep_game(&mut self, record: impl TraceRecord) {
        self.trace.record(self.now, TraceKind::game(record));
    }

    /// Fires a gameplay cue from game code (an `execute` cue no effect
    /// caused: a miss's splat, a footstep), with tags describing it (a
    /// miss flag): recorded in the trace when it records cues, and
    /// delivered to cue observers either way.
    pub fn fire_cue(
        &mut self,
        target: Entity,
        source: Option<Entity>,
        cue: Tag,
        magnitude: f64,
        tags: &TagSet,
    ) {
        if self.trace.wants(TraceCategory::CUES) {
            self.record(TraceKind::Cue {
                target,
                source,
                cue,
                event: CueEvent::Execute,
                effect: None,
                magnitude,
                tags: tags.clone(),
            });
        }
    }

    /// True when the trace records `category` or an observer watches it
    /// (see [`Gas::observe`]): check it before building a record, or
    /// firing a cue, that costs something to build.
    pub fn traces(&self, category: TraceCategory) -> bool {
        self.trace.wants(category)
    }

    /// The context's RNG (the one deterministic stream every roll uses).
    pub fn rng(&mut self) -> &mut ChaCha8Rng {
        &mut self.rng
    }

    /// The pending timers (for the invariant checks).
    pub(crate) fn timers(&self) -> &TimerQueue<Timer> {
        &self.timers
    }

    /// The events queued timers will deliver.
    pub(crate) fn queued_events(&self) -> &scheduled::QueuedEvents {
        &self.queued_events
    }

    /// Number of pending timers.
    pub fn pending_timers(&self) -> usize {
        self.timers.len()
    }

    /// A fresh component for a new entity: default attribute values.
    pub fn new_ability_system(&self) -> AbilitySystem {
        AbilitySystem::new(Attributes::new(self.catalog.attributes()))
    }

    /// A fresh component using the derived-attribute profile `profile`;
    /// refused for a profile not in this catalog.
    pub fn new_ability_system_with_profile(
        &self,
        profile: ProfileId,
    ) -> Result<AbilitySystem, AttributeError> {
        Attributes::with_profile(self.catalog.attributes(), profile).map(AbilitySystem::new)
    }

    /// A fresh component with the derived profile `profile` and some base
    /// values set before its rules and starting values run: a level-12
    /// hero spawns with its MaxHealth derived and its Health full. See
    /// [`Attributes::with_bases`] for what is refused.
    pub fn new_ability_system_with(
        &self,
        profile: ProfileId,
        bases: &[(AttributeId, f64)],
    ) -> Result<AbilitySystem, AttributeError> {
        Attributes::with_bases(self.catalog.attributes(), profile, bases).map(AbilitySystem::new)
    }

    /// Registers a post-execute step: `hook` sees every instant or periodic
    /// execution with what it did (meta attributes drained, attributes
    /// brought to zero), like an observer of [`Observe::executions`], in
    /// the trace's order. A closure needs no type annotations.
    ///
    /// ```
    /// # use gaskit::prelude::*;
    /// # let mut gas = Gas::new(CatalogBuilder::new().build().unwrap());
    /// gas.add_hook(|_world, _gas, target, execution| {
    ///     for drained in &execution.meta {
    ///         println!("{target:?} took {} from {:?}", drained.applied(), drained.drained);
    ///     }
    /// });
    /// ```
    pub fn add_hook(
        &mut self,
        hook: impl Fn(&mut World, &mut Gas, Entity, &Execution) + Send + Sync + 'static,
    ) {
        self.observe(Observe::executions(), move |world, gas, seen| {
            if let Observation::Execution { target, execution } = seen {
                hook(world, gas, *target, execution);
            }
        });
    }

    /// [`add_hook`](Self::add_hook) for a hook written as a type.
    pub fn add_effect_hook(&mut self, hook: impl EffectHook + 'static) {
        self.add_hook(move |world, gas, target, execution| {
            hook.post_execute(world, gas, target, execution)
        });
    }

    /// Adds a game module's bookkeeping rules to
    /// [`invariants::check`](crate::invariants::check): `check` pushes one
    /// line per broken rule, naming the entity and the rule.
    pub fn add_invariant(
        &mut self,
        check: impl Fn(&World, &Gas, &mut Vec<String>) + Send + Sync + 'static,
    ) {
        self.invariants.push(Arc::new(check));
    }

    pub(crate) fn check_registered_invariants(&self, world: &World, broken: &mut Vec<String>) {
        for check in &self.invariants {
            check(world, self, broken);
        }
    }

    /// Advances the clock to `to`, firing every timer due on the way at its
    /// own instant, in `(time, lane, sequence)` order, after the lazy ends
    /// due at that instant are told. Going backwards does nothing.
    ///
    /// The work is bounded ([`WorkLimits`]): a call that has handled
    /// `per_call` timers stops at the instant it reached, once what ends
    /// there has ended, and says so ([`Advance::Stopped`]; the next call
    /// carries on, and the result is the same as one long call); an
    /// instant that has handled
    /// `per_instant` timers hands what is still due to the next
    /// microsecond ([`deferred_timers`](Self::deferred_timers)). No content
    /// can hang the caller.
    pub fn advance_to(&mut self, world: &mut World, to: SimTime) -> Advance {
        self.reconcile(world);
        let prefetching = self.prefetch.applies(world.len());
        self.timers.set_prefetching(prefetching);
        let mut handled = 0u64;
        while handled < self.limits.per_call {
            self.follow_the_trace(world);
            // At an instant, lazy ends are told before anything else due
            // then. Telling one that something can act on is work like a
            // timer's, and counts as one (content that re-applies an effect
            // of no length whenever it is told ends would otherwise hold an
            // instant forever).
            let told = self.next_lazy_end(to);
            let timers_until = match told {
                Some(at) => at.as_micros().checked_sub(1).map(SimTime::from_micros),
                None => Some(to),
            };
            // A delay's wake-up stays pending while its instance runs, for
            // the behaviour to re-arm (see `waits.rs`).
            let popped =
                timers_until.and_then(|until| self.timers.pop_due_keeping(until, Timer::is_wake));
            let (ended, counted) = match popped {
                Some((at, key, timer)) => {
                    let ends = timer.is_expiry();
                    self.now = self.now.max(at);
                    self.release_reserved(world);
                    if prefetching {
                        self.prefetch_upcoming(world);
                    }
                    self.dispatch(world, key, timer);
                    (ends, true)
                }
                None if told.is_some() => (true, self.tell_lazy_end(world, to)),
                None => {
                    self.now = self.now.max(to);
                    self.release_reserved(world);
                    return Advance::Reached;
                }
            };
            let mut work = u64::from(counted);
            if ended {
                // Within the instant's budget, not the call's: a call that
                // stopped between two ends of one instant would reconcile
                // in between, and what reacts would see the second still
                // held. So a call may run past its budget by the rest of
                // an instant's ends (the instant's budget bounds them).
                let budget = self.instant_work_left().saturating_sub(work);
                work += self.end_the_rest_of_the_instant(world, budget);
            }
            self.reconcile(world);
            if work > 0 {
                handled += work;
                self.count_instant_work(work);
            }
        }
        self.release_reserved(world);
        Advance::Stopped { at: self.now }
    }

    /// Ends everything else that ends at this instant before anything
    /// reacts to what already has: the lazy ends due now are told, then
    /// the expiry timers due now fire, and only then does the caller
    /// reconcile. A woken instance, an observer or a follow-up then sees
    /// every effect that ended at the instant as ended, as the expiry lane
    /// promises. Returns the work it counted, at most `budget` (a telling
    /// nothing can act on is not work, as in `advance_to`).
    #[cold]
    #[inline(never)]
    fn end_the_rest_of_the_instant(&mut self, world: &mut World, budget: u64) -> u64 {
        let now = self.now;
        let mut handled = 0;
        while handled < budget {
            if self.next_lazy_end(now).is_some() {
                if self.tell_lazy_end(world, now) {
                    handled += 1;
                }
                continue;
            }
            // Everything stays pending as it is popped, to be taken here
            // or put back.
            match self.timers.pop_ends_keeping(now, |_| true) {
                Some((_, key, Timer::Effect(timer))) => {
                    self.timers.cancel(key);
                    self.on_effect_timer(world, timer);
                    handled += 1;
                }
                // Only effects' expiries are scheduled as ends (a restore
                // refuses a save that says otherwise); anything else goes
                // back, to fire in its turn after this instant's reactions.
                Some((at, key, _)) => {
                    self.timers.rearm(key, at, crate::time::Lane::Normal);
                    break;
                }
                None => break,
            }
        }
        handled
    }

    /// How much more work the current instant may take before what is
    /// still due at it moves to the next microsecond.
    #[inline]
    fn instant_work_left(&self) -> u64 {
        let done = if self.instant_work.0 == self.now {
            self.instant_work.1
        } else {
            0
        };
        self.limits.per_instant.saturating_sub(done)
    }

    /// Counts `work` timers handled at the current instant, and moves what is
    /// still due at it to the next microsecond once the instant's budget
    /// is spent.
    #[inline]
    fn count_instant_work(&mut self, work: u64) {
        if self.instant_work.0 != self.now {
            self.instant_work = (self.now, 0);
        }
        self.instant_work.1 += work;
        if self.instant_work.1 >= self.limits.per_instant {
            let next = self.now + SimDuration::from_micros(1);
            // The last instant has no next one: its work goes on, bounded
            // by the call's budget alone.
            if next > self.now {
                self.deferred_timers += self.timers.defer_due(self.now, next) as u64;
                self.budget_spent = Some(self.now);
            }
            self.instant_work.1 = 0;
        }
    }

    /// Advances the clock by `step`.
    pub fn advance_by(&mut self, world: &mut World, step: SimDuration) -> Advance {
        let to = self.now + step;
        self.advance_to(world, to)
    }

    /// The bounds on one [`advance_to`](Self::advance_to)'s work.
    pub fn work_limits(&self) -> WorkLimits {
        self.limits
    }

    /// Sets the bounds on one [`advance_to`](Self::advance_to)'s work (each
    /// at least 1).
    pub fn set_work_limits(&mut self, limits: WorkLimits) {
        self.limits = WorkLimits {
            per_instant: limits.per_instant.max(1),
            per_call: limits.per_call.max(1),
        };
    }

    /// How many timers an overloaded instant has handed to the next
    /// microsecond so far (zero unless some content schedules without end).
    pub fn deferred_timers(&self) -> u64 {
        self.deferred_timers
    }

    fn dispatch(&mut self, world: &mut World, key: TimerKey, timer: Timer) {
        match timer {
            Timer::Effect(timer) => self.on_effect_timer(world, timer),
            Timer::Event(key) => {
                if let Some((to, event)) = self.queued_events.remove(key) {
                    // Only timers hold the store's keys, and the one that
                    // held this key has fired: an empty store is held by
                    // nothing, and what a burst grew can go.
                    self.queued_events
                        .release_if_empty(scheduled::QUEUED_EVENTS_KEPT);
                    self.handle_event(world, to, event);
                }
            }
            Timer::AbilityWake { owner, instance } => {
                self.on_wake_timer(world, owner, instance, key)
            }
        }
    }
}
