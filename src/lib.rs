//! # gaskit
//!
//! A gameplay ability framework in the style of Unreal's Gameplay Ability
//! System (GAS), built on the [`hecs`] ECS. The *core* knows no game: game
//! code activates abilities by sending gameplay events; abilities change the
//! world only through gameplay effects on attributes and hierarchical
//! gameplay tags. Content is data (`*.ron`, `*.tags`), and the same seed and
//! timed inputs always give the same result.
//!
//! Games are modules on top of the core. One ships with it:
//! [`combat`], which follows the CRADL combat contract (OSRS-derived damage
//! math on a continuous real-time cadence). `examples/lane` is another,
//! written with no line of combat.
//!
//! ```
//! use gaskit::prelude::*;
//!
//! // A game's taxonomy, on top of the core's own tags.
//! let mut builder = TagRegistryBuilder::core();
//! builder.add_source("game.tags", "Action.Modal.Shop  # a shop window is open\n");
//! let tags = builder.build().unwrap();
//! let shop = tags.get("Action.Modal.Shop").unwrap();
//!
//! let mut owned = TagCounts::new();
//! assert!(owned.add(shop)); // 0 -> 1: reported as a presence change
//!
//! // Parent-aware matching: some modal is open.
//! let modal = tags.get("Action.Modal").unwrap();
//! assert!(owned.tags().has(modal));
//! assert!(!owned.tags().has_exact(modal));
//! ```
//!
//! # Architecture
//!
//! ## Goals, and the decisions they force
//!
//! - **A framework, not a game.** The core knows no game; every game,
//!   combat included, plugs in through the same extension points (below).
//! - **Correct to the contract.** Each rule of the CRADL combat contract has
//!   one home and a test that fails if it breaks (the combat module docs
//!   record where the contract left a choice and which one gaskit made).
//! - **Deterministic.** Integer simulated time, one ChaCha RNG stream owned by
//!   the context, ordering by `(time, lane, sequence)` and never by hash-map
//!   or ECS query order. A trace is a pure function of seed and timed inputs.
//! - **Fast enough for a million combatants.** Names are resolved to dense
//!   ids once, at load. Tags are 4-byte ids whose numbering encodes the
//!   hierarchy, so parent-aware matching is a bit-range test. Hot paths do
//!   not allocate.
//! - **Data for content, code for new kinds of behaviour.** A new weapon,
//!   buff or ability variant is a RON edit.
//! - **Errors are values.** Bad data, events or API calls return an error
//!   that names the file, line, column and offending text and suggests the
//!   nearest valid name ([`Diagnostic`]). Nothing panics on input.
//!
//! ## Layers
//!
//! Each layer is one module, and uses only the layers listed above it, with
//! two exceptions. The trace's records name what later layers define (the
//! ids of attributes, effects and abilities, the catalog to print their
//! names), since every layer records into it. And an effect definition names
//! the abilities it grants, resolved once the abilities are compiled.
//! Everything down to `snapshot` is the core.
//!
//! | layer | owns |
//! |---|---|
//! | `diagnostics` | located errors and warnings, "did you mean" |
//! | [`rounding`] | exact, inline `floor` and `round` for per-event game math (no library call on baseline x86-64) |
//! | `tags` | registry, [`Tag`], [`TagSet`], [`TagQuery`], [`TagCounts`], native tag sets |
//! | `time` | [`SimTime`], [`SimDuration`], the [`TimerQueue`] |
//! | [`trace`] | the structured record of what happened ([`Trace`]), game records, the [`Name`] component, text and JSON-lines renderers |
//! | `attributes` | [`AttributeSchema`], per-entity [`Attributes`], the modifier pipeline, derived attributes, starting values, [`Breakdown`] |
//! | `effects` | [`EffectDef`]s, [`EffectSpec`]s, active effects ([`EffectHost`]), stacking, periods, meta attributes, the life rule |
//! | `abilities` | the per-entity [`AbilitySystem`]; ability definitions, [`GameplayEvent`]s, activation rules, [`AbilityBehaviour`]s, long-running instances |
//! | `catalog` | [`Catalog`]: loading and validating content files and tag files; game modules' [`ContentSection`]s |
//! | `gas` | the [`Gas`] context: catalog, clock, timers, RNG, trace, observers, registered invariants; the step loop and its reconcile |
//! | [`invariants`] | the core's bookkeeping rules and the game modules' own, checked against a live world |
//! | [`inspect`] | one entity's whole state at the current instant, as data and text; game modules' sections |
//! | [`snapshot`] | the whole gaskit state of a world, with the game modules' components (rollback) |
//! | [`combat`] | a game module: the CRADL rules (engagement loop, shared attack cooldown, weave queue, chase, range, damage math, XP, styles, equipment, death, spellbooks, profiles) |
//! | [`scenario`] | scripted combat fights (RON), run at any frame step |
//! | [`arena`] | crowd fights for load tests and benchmarks |
//!
//! ## The core and the games on it
//!
//! The core never imports a game module; a game module uses only the
//! core's public extension points, the same a game's own module uses. The
//! combat layer is the worked example of each:
//!
//! - **Tags** its code relies on: a [`native_tags!`] set resolved against
//!   the registry once ([`combat::native`], `defs.tags[native::STATUS_DEAD]`);
//!   its tag files ([`combat::TAG_FILES`]) are added by the game.
//! - **Content**: a [`ContentSection`] registered on the
//!   [`CatalogBuilder`] reads its own top-level keys of the content files
//!   (`combat`, `items`, `spells`, ...) with located errors, and is read back
//!   with [`Catalog::section`] ([`combat::CombatDefs`],
//!   [`combat::add_content`]). A key that neither the core nor a registered
//!   section reads is an error.
//! - **Behaviours**: [`AbilityBehaviour`]s registered by the name the data
//!   uses ([`Gas::register_behaviour`]): the walk-up, auto-attack, the weave
//!   queue. What
//!   one running instance remembers is its own serde state
//!   ([`AbilityCx::state`]), carried by snapshots.
//! - **Calculations**: [`ExecutionCalculation`]s and
//!   [`MagnitudeCalculation`]s registered on the [`CatalogBuilder`] by the
//!   name data uses (the lane's bolt damage).
//! - **Observers**: callbacks on what happened, filtered by [`Observe`]
//!   (cues, attribute thresholds, tags, effects, abilities, records),
//!   delivered in the trace's order ([`Gas::observe`]). What follows an
//!   execution is one kind of observer ([`Gas::add_hook`],
//!   [`EffectHook`]): combat's XP, in-combat and death.
//! - **Queries**: [`Gas::can_activate`], the activation checks without the
//!   activation, for AI and UI.
//! - **Trace records**: a [`TraceRecord`] type recorded with
//!   [`Gas::record_game`] under its own [`TraceCategory::game`] numbers, and
//!   rendered by both renderers ([`combat::CombatRecord`]); or the
//!   ready-made [`GameRecord`].
//! - **Rollback state**: components implementing
//!   [`snapshot::RollbackComponent`], named as a [`snapshot::Snapshot`]'s
//!   type parameter ([`combat::CombatComponents`]).
//! - **Invariants**: checks added with [`Gas::add_invariant`] run by
//!   [`invariants::check`] (combat's attacker sets, weave queue and
//!   `State.Chasing`).
//!
//! [`CatalogBuilder::new`] is the core alone; a game adds its modules
//! ([`combat::default_catalog`] is the core with the combat layer and its
//! shipped content).
//!
//! ### Tags
//!
//! The registry numbers tags in depth-first order of their dotted names (a
//! `.` sorts below every allowed character, so plain byte order *is*
//! depth-first order). Every descendant of a tag therefore has an id inside
//! the tag's `id..subtree_end` range, and [`Tag`] carries both numbers.
//! Consequences: [`Tag::matches`] needs no registry; a [`TagSet`] of more
//! than six members also keeps a bitset of them and answers a parent-aware
//! `has` by testing the bit range of the parent's subtree, which is O(1)
//! for leaves and a word or two for parents (a smaller set compares its
//! few members' ids with the range); no ancestor expansion is stored or
//! maintained. The
//! price is that ids depend on the whole taxonomy, so the tags gaskit relies
//! on are [`native`] constants resolved (and checked to exist) when the
//! registry is built, and saved games store tag names, not ids.
//!
//! ### Attributes
//!
//! Each entity's [`Attributes`] hold base values, current values and one
//! list of active modifiers kept in a *canonical* order (attribute, then
//! operation, then value). A current value is recomputed from base and
//! modifiers whenever a source changes, summing in that canonical order, so
//! it depends only on which modifiers are active, bit for bit; never on
//! arrival order or history. Dependencies between attributes (bounds such as
//! `Health ≤ MaxHealth`, and derived rules) are compiled once per derived
//! profile into a per-attribute list of dependents in topological order, so
//! a change walks a fixed list: no graph search, lookup or allocation per
//! entity. Derived rules write their target's *base*, so buffs still layer
//! on top of a derived value.
//!
//! ### Time, effects and the context
//!
//! Simulated time is integer microseconds; seconds from data are rounded
//! once at load. Every timer lives in one [`TimerQueue`] ordered by
//! `(time, lane, sequence)` (at one instant, what ends goes first; a
//! periodic effect's tick due at its own expiry still runs before it
//! ends, as in Unreal, so 3 s at a 1 s period ticks three times, four
//! with `execute_on_application`), and [`Gas::advance_to`] pops them one at a time, each
//! at its own instant, so advancing in one step or in many gives identical
//! results. Cancellation is a generation-checked slot-map removal; nothing
//! is searched for. In a large world, before each timer it runs the loop
//! asks the memory system for what a timer a few places on will read (its
//! payload, its entity's record in the world and [`AbilitySystem`], that
//! system's effect and instance slots; for a timer that runs game code,
//! whatever of the game's own components its [`WakeReader`] asks for, and
//! what its [`ReachReader`] reaches through them: other entities,
//! heap-held parts), so the cache misses of entities far apart in memory
//! overlap ([`Prefetch`]). It is a hint that changes no state, and
//! the crate's only `unsafe` (the prefetch intrinsic).
//!
//! Effects act on an entity's [`EffectHost`] (attributes, counted owned
//! tags, active effects). The effect rules are plain methods on the host
//! that take an explicit context (definitions, clock, timer queue, trace);
//! only the [`Gas`] touches the `hecs::World`, fetching components and
//! reading a source's attributes *before* borrowing the target (both may
//! live in one archetype column). Instant and periodic executions write base
//! values, and a periodic effect holds no modifier (as in Unreal's GAS):
//! only duration and infinite effects without a period feed the
//! aggregator. Execution calculations run first, on a copy of the RNG kept
//! only if every output is finite, so a failed execution changes nothing.
//! Meta attributes (`Damage`) drain into their target (`Health`) in the
//! same step; attributes brought to zero apply their `on_zero` effect; then
//! the observers of executions (the post-execute step) hear of it.
//!
//! Life and death are data, set once for every effect: an attribute may
//! start at another (`Health` at `MaxHealth`, after derived rules) and apply
//! an effect at zero (`GE_Dead` granting `Status.Dead`), and the `life`
//! section says which tags mean dead. A dead owner refuses new effects
//! unless they are marked `affects_dead` (a revive), and its periodic
//! effects pause or are removed, so no damage-over-time ticks on a corpse
//! for want of a guard.
//!
//! After every step the context *reconciles* the entities whose tags
//! changed: effects whose ongoing requirements flipped are inhibited or
//! resumed, ability instances waiting on a tag, an attribute or an effect
//! wake, and the follow-up work effects left (conditional effects, effects
//! applied on expiry or removal, abilities granted or revoked with an
//! effect) is done in order; live attribute captures are re-read. Then the
//! observers hear what happened, in the trace's order. Reactions live in
//! that one place and run on every path (application, expiry, removal),
//! instead of being patched into each event. What nobody can react to is
//! not noted at all: an effect of only tags and a duration (a cooldown),
//! on an entity no trace, observer or wait watches, begins by a short path
//! that leaves the same state. The host never reaches past
//! its own entity: what needs the world or another entity is left as
//! follow-up work for the context. The layering rule bends for the runtime
//! too: the runtime systems of every layer run through the one context type,
//! which is defined last and knows every layer; beyond the two exceptions
//! above, definitions and rules never call a layer below them.
//!
//! ### Abilities
//!
//! Gameplay events are the only activation channel: game code, AI, UI and
//! cheats send the same [`GameplayEvent`]. [`Gas::send_event`] queues it on
//! the timer queue, so events sent for one instant are handled in send
//! order; [`Gas::handle_event`] handles it at once, and
//! [`Gas::activate_ability`] starts one named ability with it. An ability is data
//! (tags, requirements, cost, cooldown, net policy) plus a behaviour: either
//! the built-in `ApplyEffects`, which makes buffs and heals pure data, or a
//! named [`AbilityBehaviour`] registered with the context, which is how the
//! combat layer plugs in its auto-attack without the ability layer knowing
//! it. Activation runs every read-only check before anything changes, so a
//! refused activation burns no cooldown and pays no cost: what data can
//! know (a SetByCaller value nobody gives) is a load error, and what only
//! run time knows (an event without the magnitude an effect reads) is
//! checked by evaluating every spec the activation would apply, cost and
//! cooldown included, before committing. Failures are
//! `Activation.Fail.*` tags whose developer comments are the messages a
//! player sees; [`Gas::can_activate`] runs the same checks and nothing else.
//! Long-running instances live in a slot map on their owner, hold their
//! behaviour's state in serialized form (so a snapshot needs no registry
//! of state types), and wait on a delay, an event, a tag, an attribute
//! threshold or an effect's end; wake-ups carry the
//! generation-checked key, so a wake for an ended instance finds nothing.
//! Every end path goes through one function that removes the instance
//! first, which is what makes teardown run exactly once.
//!
//! At any instant, effect expiries fire before everything else due then
//! (the expiry lane of the [`TimerQueue`]): an ability pressed at the exact
//! instant its cooldown ends is ready, whatever was scheduled first.
//!
//! ### Lazy ends
//!
//! An effect whose end nothing reacts to (a duration and tags no rule
//! reacts to: [`EffectDef::ends_lazily`], settled once per catalog)
//! arms no expiry timer; it carries its end instant. The decision follows
//! from two goals: a cooldown stamped on every swing and read only by the
//! next swing should cost no timer and no second, cold look at its owner;
//! and no read may ever see it a microsecond too long. So every read of an
//! entity's tags and effects takes the clock ([`EffectHost::tags`],
//! [`AbilitySystem::has_tag`], [`Gas::has_tag`], ...) and treats it as
//! gone from its end instant; the context clears it the next time it takes
//! the entity to change it (a swing's new cooldown renews the ended one in
//! its slot); and saves and checksums see the entity as cleared. What a
//! watcher needs (the trace, observers, waits on the entity's tags or
//! state) comes from notices that are not state: rebuilt from the hosts on
//! a restore or when the trace starts recording, told at the end's instant
//! before anything else due then. The state is the same watched or not,
//! because both clear the same effects in one order (end, start, entity,
//! slot) before anything else touches the entity. The price is that reads
//! need the clock, and that a read between an end and the clearing costs a
//! little more (the ended references are subtracted).
//!
//! ### Combat
//!
//! The combat layer adds no new foundation: auto-attack is one long-running
//! ability whose behaviour is registered by name, state changes are effects
//! (`GE_Attack_Cooldown` stamped per attack with a SetByCaller duration,
//! `GE_Damage` carrying the damage type as its SetByCaller key), routing is
//! data (`trigger_when` sends a cast to the weave queue while engaged and to
//! the standalone cast otherwise; `cancel_on_target_tags_added` ends the
//! loop the instant its target dies; an attack click is the walk-up ability
//! carrying the engage as its payload). The loop reads the attack cooldown as
//! a level and waits exactly the remaining time, which, with integer time
//! and reads that take the clock, makes the ready epsilon zero: nothing
//! ever reads itself "not ready" by a frame. Range has one resolver that both the
//! engage gate ([`combat::CombatRuntime::can_engage`]) and the swing gate
//! call, and every range gate asks about what will actually fire (a weave
//! beyond its spell's range waits, the weapon fires); chase is a pure
//! re-issue state machine behind pawn and mover traits, shared by the
//! walk-up and the loop, with a kinematic mover whose position is a
//! function of time. Every engagement end path runs one teardown.
//!
//! Everything that follows a hit lives in one post-execute hook
//! ([`combat::CombatHook`]): the hit cue (only once damage applied),
//! style-routed XP and Hitpoints XP (only when health actually fell),
//! `Status.InCombat` on both sides, and `Combat.Event.Death` to a target
//! brought to zero, which triggers the server-only death ability (the
//! target is dead either way: `Health`'s `on_zero` applies `GE_Dead`). The
//! attack records its style, damage type and hit cue as tags on the damage
//! spec, so the hook needs no other channel.
//! Persistence saves sources only ([`combat::Profile`], by name, never by
//! id) and rebuilds the rest on load, reporting each fallback it takes.
//!
//! ### Snapshots, rollback and invariants
//!
//! All gaskit state lives in components and in the context, so a
//! [`snapshot::Snapshot`] is a copy of both, ordered by entity id, and a
//! restore puts them back with the same entity handles. Everything that
//! hands out keys (effects, ability instances, timers) uses one slot map
//! whose free list is part of its saved form, so a restored world hands out
//! the same next keys as the original and the two runs do not drift
//! (entities spawned later aside: hecs assigns their handles). The
//! timer queue saves its pending timers in pop order, not its bucket layout.
//! A checksum hashes the serde data model of the state word by word (no
//! text, no buffer), the same on every machine. The game's own components
//! are the snapshot's type parameter, so saving them costs no type erasure
//! and no registry. [`invariants::check`] states the bookkeeping rules (tag
//! counts, attribute bounds, timers that belong to something live, and
//! each game module's own) as code, so tests and soak runs can verify them
//! after every step.
//!
//! ### Catalog
//!
//! Content files are parsed (RON, with located syntax errors) into data
//! forms that hold names, then compiled layer by layer: tags first, then
//! attributes, effects, abilities, then each game module's section, each
//! resolving names to ids exactly once. A section reads the whole text of
//! every file for its own keys, so its errors are located like the core's.
//! Every problem in every file is collected before the build fails, each
//! located at its file, line and column; errors and traces name effects,
//! tags and attributes, never their numbers.
#![deny(missing_docs)]
// Denied, not forbidden: `prefetch` allows itself the one intrinsic call
// (see there). Nothing else may use `unsafe`.
#![deny(unsafe_code)]

mod abilities;
pub mod arena;
mod attributes;
mod catalog;
mod checksum;
pub mod combat;
mod diagnostics;
mod effects;
mod fs_util;
mod gas;
pub mod inspect;
pub mod invariants;
mod names;
mod prefetch;
mod ron_format;
pub mod rounding;
pub mod scenario;
mod slots;
pub mod snapshot;
mod tags;
mod time;
pub mod trace;

pub mod prelude;

/// The `hecs` gaskit is built on, so a game uses the very same `World` and
/// `Entity` types without adding (and matching) the dependency itself.
pub use hecs;

/// The `rand_chacha` of the context's RNG ([`ExecutionCx::rng`]), with its
/// `rand_core`, so a calculation draws integers from it
/// (`use gaskit::rand_chacha::rand_core::Rng`) without adding and
/// matching the dependency itself.
pub use rand_chacha;

pub use abilities::{
    AbilityBehaviour, AbilityCx, AbilityData, AbilityDef, AbilityDefs, AbilityId, AbilitySystem,
    Activation, ActivationFailure, Behaviour, BehaviourData, BehaviourId, ClientEvent, ClientField,
    ClientId, Cooldown, CooldownData, EffectApplication, EffectApplicationData, EndReason,
    GameplayEvent, InstanceKey, InstanceState, NetOwner, NetPolicy, Origin, Recipient, Wait,
    WakeReason,
};
pub use attributes::{
    AttributeChange, AttributeChanges, AttributeData, AttributeDef, AttributeError, AttributeId,
    AttributeMode, AttributeSchema, Attributes, Bound, BoundData, Breakdown, Contribution,
    DerivedProfileData, DerivedRuleData, ModOp, ProfileId, SourceId, MAX_ATTRIBUTES,
    MAX_DERIVED_RULES, MAX_DERIVED_TERMS,
};
pub use catalog::{Catalog, CatalogBuilder, ContentFile, ContentSection, Fingerprint, SectionCx};
pub use diagnostics::{
    locate, locate_definition, locate_field, nearest, Diagnostic, LoadErrors, Severity, SourceFile,
};
pub use effects::{
    ApplyOutcome, AttributeCapture, AttributeMagnitudeData, CalculationId, CalculationSetup,
    Calculations, Capture, CaptureDef, CaptureFrom, Cue, CueData, CueEvent, DurationData,
    DurationOnReapply, DurationPolicy, EffectData, EffectDef, EffectDefs, EffectError, EffectHost,
    EffectId, EffectKey, EffectSpec, EffectTimer, Execution, ExecutionCalculation, ExecutionCx,
    Life, LifeData, Magnitude, MagnitudeCalculation, MagnitudeCx, MagnitudeData, MetaOutcome,
    ModifierData, ModifierDef, Period, PeriodData, PeriodOnReapply, PeriodicWhileDead,
    SetByCallerError, StackBy, StackExpiry, Stacking, StackingData, MAX_EFFECT_LEVEL, MAX_STACKS,
};
pub use gas::{
    prefetch_component, prefetch_effect_host, reach_nothing, read_ability_system, AbilityError,
    Advance, EffectHook, EventOutcome, Gas, Observe, ObserverId, Prefetch, ReachReader, Reserved,
    Threshold, WakeReader, WorkLimits,
};
pub use names::{Named, MAX_DEFINITIONS};
pub use tags::native;
pub use tags::{
    NativeSet, NativeTag, NativeTags, NotHeld, Tag, TagCounts, TagOrigin, TagQuery, TagQueryDef,
    TagRegistry, TagRegistryBuilder, TagSet, UnknownTag, CORE_TAG_FILES, MAX_TAGS, MAX_TAG_DEPTH,
};
pub use time::{
    InvalidDuration, Lane, SimDuration, SimTime, TimerKey, TimerQueue, MICROS_PER_SECOND,
};
pub use trace::{
    entity_name, render_json, render_jsonl, render_line, render_text, BlockReason, Drained,
    EntityNames, GameRecord, Name, Observation, RemovalReason, Trace, TraceCategory, TraceEvent,
    TraceFilter, TraceKind, TraceRecord,
};

#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
