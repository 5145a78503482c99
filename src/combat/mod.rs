//! The combat layer: the CRADL combat contract, a game module on top of the
//! core.
//!
//! It uses only the core's public extension points, as any game's module
//! does: its tags are a native set ([`native`]) and tag files
//! ([`TAG_FILES`]); its content is a section of the content files
//! ([`CombatDefs`], registered by [`add_content`]); its behaviours, its
//! post-execute hook and its invariants are registered on the context by
//! [`install`]; its trace events are [`CombatRecord`]s; its rollback state
//! is [`CombatComponents`]. [`default_catalog`] gives the core with combat
//! and the shipped CRADL content.
//!
//! Entities fight when they have an [`AbilitySystem`](crate::AbilitySystem),
//! a [`Combatant`] and a body the mover can place (the shipped [`Kinematic`]).
//!
//! The pieces, one home each:
//!
//! - the walk-up into an engagement ([`QueuedInteract`]) and the move order
//!   that cancels it and the loop ([`move_order`]);
//! - the engagement loop ([`AutoAttack`]) with the shared attack cooldown
//!   read as a level, chase, line of sight and the one teardown;
//! - the weave queue and the standalone cast ([`QueueWeave`], [`CastSpell`]);
//! - the range resolver ([`range`]), used by the engage gate
//!   ([`CombatRuntime::can_engage`]) and the swing gate alike;
//! - the damage formula ([`math`]), used by every attack path;
//! - chase ([`ChaseState`], [`PawnCombatant`], [`MoveIssuer`]).
//!
//! # The first swing
//!
//! Two rules of the contract meet at activation. The engagement-loop rule
//! sketches the loop as activate, snapshot, wait one swing interval, then
//! resolve. The shared-cooldown rule says the loop decides when to attack
//! by reading `Cooldown.Combat.Attack`'s remaining time as a level, never
//! by re-waiting a full interval. Read literally, the first would open
//! every engagement with a full interval of standing still however long
//! ago the last attack was. gaskit keeps the level read at activation too:
//! the first poll resolves an attack at once when the cooldown is clear,
//! and otherwise waits exactly its remainder (a standalone cast just
//! before, or the swing of an engagement left a moment ago). The loop
//! rule's wait is then the wait after each resolved attack. This keeps one
//! gate for every attack: disengaging and engaging again is never faster
//! than staying engaged, and the first hit of a fight never waits on
//! anything but the cooldown. Tests:
//! `the_first_swing_reads_the_cooldown_as_a_level_so_re_engaging_never_swings_early`
//! and `a_standalone_cast_stamps_the_attack_cooldown_so_engaging_after_does_not_swing_early`
//! in `tests/engagement.rs`.
//!
//! # Entering combat
//!
//! An attack click is an `Action.Trigger.QueuedInteract` event whose payload
//! is `Action.Trigger.Combat.Engage`: [`QueuedInteract`] walks up through
//! the one chase primitive until the target is within engagement range and
//! in sight ([`CombatRuntime::in_engagement_reach`]), then fires the engage.
//! The engage on its own is refused from further away ("Out of range.").
//! A fresh move order ([`move_order`]) cancels the walk-up and the loop.
//!
//! # A weave beyond its spell's range
//!
//! Every range gate goes through the resolver for what will actually fire.
//! A queued weave fires at the next tick when the target is within its
//! spell's range, wherever the weapon reaches. When the target is beyond
//! it (a longbow outranges Wind Strike), the loop does not chase for the
//! cast, since the contract has no walk-then-cast: it shoots the weapon
//! as usual and keeps the weave queued ([`CombatRecord::WeaveHeld`]) until
//! a tick finds the target within the spell's range, a new click replaces
//! it or the engagement ends. The loop only ever chases toward its
//! weapon's range, so it cannot ping-pong between the two.
//!
//! # Free actions
//!
//! Prayer toggles and self-casts are not attacks: they gate on and stamp
//! `Cooldown.Combat.Cast` (`GE_Cast_Cooldown`) and never touch
//! `Cooldown.Combat.Attack`, so they never move a swing. They are plain
//! data abilities; `abilities/samples.ron` ships a prayer toggle (two
//! abilities on one trigger, split by `trigger_when`) and a self-cast.
//!
//! # Outcomes
//!
//! A hit's cue fires after its damage applied, from the post-execute step
//! ([`CombatHook`]); a miss's (flagged `Combat.Event.Miss`) and a hit for
//! zero's fire from the resolve step, since nothing applies. A hit the
//! target refuses (immune, dead) is recorded as
//! [`AttackOutcome::Blocked`] and shows no cue. The attacker hears
//! `Combat.Event.Hit` or `Combat.Event.Miss` as a gameplay event (an
//! on-hit proc is an ability triggered by it); the dying hear
//! `Combat.Event.Death`, and a fresh entry into combat sends
//! `Combat.Event.EnterCombat`.

mod auto_attack;
mod cast;
mod chase;
mod combatant;
mod compile;
mod consume;
mod data;
mod death;
mod defs;
mod gear;
mod hook;
mod inspect;
mod interact;
mod invariants;
mod loadout;
mod los;
pub mod math;
mod movement;
pub mod native;
mod profile;
mod progress;
mod pursuit;
pub mod range;
mod record;
mod resolve;
mod runtime;
mod saved_combatant;
mod skills;
mod spellbook;
mod stats;
mod style;
mod vec2;
mod wake_reader;

use std::sync::Arc;

pub use auto_attack::AutoAttack;
pub use cast::{CastSpell, QueueWeave};
pub use chase::{ChaseAction, ChaseState, ChasingPawn, PawnCombatant};
pub use combatant::{Attackers, Combatant, SpellbookState, Targeting};
pub use data::{
    CombatKindData, CombatSettingsData, ItemData, SpellData, SpellbookData, WeaponData,
    XpRoutingData,
};
pub use death::{run_death_flow, Death};
pub use defs::{
    CombatDefs, CombatKind, CombatSettings, DamageType, ItemDef, ItemId, KindId, Skill, SpellDef,
    SpellId, SpellbookDef, Style, WeaponDef,
};
pub use gear::{equip, Eat};
pub use hook::CombatHook;
pub use inspect::CombatInspect;
pub use interact::{move_order, QueuedInteract};
pub use loadout::{Equipment, Inventory};
pub use los::{AlwaysVisible, LineOfSight};
pub use movement::{Kinematic, KinematicMover, MoveIssuer};
pub use native::{CombatNatives, CombatTags};
pub use profile::{load_profile, save_profile, LoadReport, Profile};
pub use progress::{max_health_for_level, sync_max_health, xp_routing};
pub use record::{AttackOutcome, ChasePhase, CombatRecord, COMBAT, MOVEMENT, PROGRESS};
pub use resolve::{attack_rolls, expectation, style_bonus, AttackRolls, Expectation};
pub use runtime::{CombatRuntime, MissingDefinition};
pub use skills::{level_for_xp, xp_for_level, Skills, MAX_LEVEL, XP_TABLE};
pub use spellbook::{
    check_autocast, has_learned, set_autocast, set_spellbook, unlock_spellbook, AutocastSet,
};
pub use stats::{active_style, snapshot, snapshot_of, AttackSource, SwingStats};
pub use style::SetStyle;
pub use vec2::Vec2;
pub use wake_reader::{reach_target, read_fighter};

use crate::catalog::{Catalog, CatalogBuilder};
use crate::gas::Gas;
use crate::snapshot::RollbackComponent;

/// The CRADL taxonomy: every tag file the combat layer and its shipped
/// content use, embedded so a combat catalog needs no files.
// rustfmt would split each pair over four lines; one per line reads better.
#[rustfmt::skip]
pub const TAG_FILES: &[(&str, &str)] = &[
    ("tags/action.tags", include_str!("../../tags/action.tags")),
    ("tags/combat.tags", include_str!("../../tags/combat.tags")),
    ("tags/combat_activation.tags", include_str!("../../tags/combat_activation.tags")),
    ("tags/cooldown.tags", include_str!("../../tags/cooldown.tags")),
    ("tags/gameplay_cue.tags", include_str!("../../tags/gameplay_cue.tags")),
    ("tags/item.tags", include_str!("../../tags/item.tags")),
    ("tags/set_by_caller.tags", include_str!("../../tags/set_by_caller.tags")),
    ("tags/skill.tags", include_str!("../../tags/skill.tags")),
    ("tags/spellbook.tags", include_str!("../../tags/spellbook.tags")),
    ("tags/state.tags", include_str!("../../tags/state.tags")),
    ("tags/status.tags", include_str!("../../tags/status.tags")),
];

/// The shipped CRADL content (attributes, effects, combat settings, kinds,
/// items, spells, abilities and the data-only samples), embedded.
#[rustfmt::skip]
pub const CONTENT_FILES: &[(&str, &str)] = &[
    ("abilities/attributes.ron", include_str!("../../abilities/attributes.ron")),
    ("abilities/effects.ron", include_str!("../../abilities/effects.ron")),
    ("abilities/samples.ron", include_str!("../../abilities/samples.ron")),
    ("abilities/combat.ron", include_str!("../../abilities/combat.ron")),
    ("abilities/items.ron", include_str!("../../abilities/items.ron")),
    ("abilities/spells.ron", include_str!("../../abilities/spells.ron")),
];

/// The components of the combat layer that are rollback state: name it as
/// a [`Snapshot`](crate::snapshot::Snapshot)'s game components
/// (`Snapshot<CombatComponents>`), or inside a bigger tuple beside a game's own.
pub type CombatComponents = (Combatant, Kinematic);

impl RollbackComponent for Kinematic {
    /// Finite positions, start and speed, the speed not negative.
    fn check(&self, _: &crate::catalog::Catalog) -> Result<(), String> {
        let finite = [self.from.x, self.from.y, self.to.x, self.to.y, self.speed]
            .iter()
            .all(|v| v.is_finite());
        if !finite || self.speed < 0.0 {
            return Err("a body's position or speed is not a finite, non-negative number".into());
        }
        Ok(())
    }
}

/// Opts a catalog builder into the combat layer: its tag files and its
/// content section (the `combat`, `kinds`, `items`, `spells` and
/// `spellbooks` keys). Content files are the caller's to add: the shipped
/// ones are [`CONTENT_FILES`], or use [`default_catalog_builder`].
pub fn add_content(builder: &mut CatalogBuilder) -> &mut CatalogBuilder {
    builder.tags().add_files(TAG_FILES);
    builder.add_section::<CombatDefs>()
}

/// A tag registry builder with the core's tags and the CRADL taxonomy.
pub fn default_tag_registry_builder() -> crate::TagRegistryBuilder {
    let mut builder = crate::TagRegistryBuilder::core();
    builder.add_files(TAG_FILES);
    builder
}

/// A catalog builder with the core, the combat layer and the shipped CRADL
/// content: add a game's own files on top.
pub fn default_catalog_builder() -> CatalogBuilder {
    let mut builder = CatalogBuilder::new();
    add_content(&mut builder).add_files(CONTENT_FILES);
    builder
}

/// The core, the combat layer and the shipped CRADL content, compiled.
pub fn default_catalog() -> Catalog {
    default_catalog_builder()
        .build()
        .expect("the embedded combat content is valid; tests/catalog.rs loads it")
}

/// Installs the combat layer on `gas` with the shipped kinematic mover and
/// always-visible line of sight; returns the shared runtime.
pub fn install(gas: &mut Gas) -> Result<Arc<CombatRuntime>, MissingDefinition> {
    let runtime = Arc::new(CombatRuntime::new(gas.catalog_arc().clone())?);
    install_runtime(gas, runtime.clone());
    Ok(runtime)
}

/// Installs the combat layer with a runtime built by the game (its own
/// pawn, mover and line of sight): its behaviours, its effect hook, its
/// invariants, [`read_fighter`] as the context's wake reader and
/// [`reach_target`] as its reach reader.
pub fn install_runtime(gas: &mut Gas, runtime: Arc<CombatRuntime>) {
    let uses = |gas: &Gas, name: &str| gas.catalog().abilities().behaviour(name).is_some();
    if uses(gas, "AutoAttack") {
        let _ = gas.register_behaviour("AutoAttack", AutoAttack(runtime.clone()));
    }
    if uses(gas, "QueuedInteract") {
        let _ = gas.register_behaviour("QueuedInteract", QueuedInteract(runtime.clone()));
    }
    if uses(gas, "CastSpell") {
        let _ = gas.register_behaviour("CastSpell", CastSpell(runtime.clone()));
    }
    if uses(gas, "QueueWeave") {
        let _ = gas.register_behaviour("QueueWeave", QueueWeave(runtime.clone()));
    }
    if uses(gas, "Death") {
        let _ = gas.register_behaviour("Death", Death(runtime.clone()));
    }
    if uses(gas, "SetStyle") {
        let _ = gas.register_behaviour("SetStyle", SetStyle(runtime.clone()));
    }
    if uses(gas, "AutocastSet") {
        let _ = gas.register_behaviour("AutocastSet", AutocastSet(runtime.clone()));
    }
    if uses(gas, "Eat") {
        let _ = gas.register_behaviour("Eat", Eat(runtime.clone()));
    }
    gas.set_wake_reader(read_fighter);
    gas.set_reach_reader(reach_target);
    gas.add_effect_hook(CombatHook(runtime.clone()));
    gas.add_invariant(move |world, gas, broken| invariants::check(&runtime, world, gas, broken));
}

/// Makes a freshly spawned combatant ready: `MaxHealth` from its Hitpoints
/// level, health full. Returns what is wrong with it, worded for a log:
/// without an ability answering `Combat.Event.Death` it still dies at zero
/// health (`Status.Dead`) but never runs the death flow or respawns.
pub fn prepare(
    runtime: &CombatRuntime,
    world: &mut hecs::World,
    gas: &mut Gas,
    entity: hecs::Entity,
) -> Vec<String> {
    sync_max_health(runtime, world, gas, entity);
    let spec = crate::effects::EffectSpec::new(runtime.restore_health_effect);
    gas.apply_effect_recorded(world, entity, spec);
    let death = runtime.tags()[native::COMBAT_EVENT_DEATH];
    let abilities = gas.catalog().abilities();
    let answers_death = world.get::<&crate::AbilitySystem>(entity).is_ok_and(|s| {
        s.granted_abilities()
            .any(|(id, _)| death.matches(abilities.def(id).trigger))
    });
    if answers_death {
        Vec::new()
    } else {
        vec![format!(
            "combatant {entity:?} has no ability triggered by Combat.Event.Death: at zero health \
             it is dead for good (grant GA_Death)"
        )]
    }
}

/// A fresh combatant of `kind`, on the default spellbook.
pub fn new_combatant(defs: &CombatDefs, kind: KindId) -> Combatant {
    let book = defs.settings.default_spellbook;
    Combatant {
        kind,
        skills: Skills::default(),
        equipment: Equipment::new(),
        inventory: Inventory::new(),
        cold_storage: Inventory::new(),
        spellbook: SpellbookState {
            current: book,
            unlocked: std::iter::once(book).collect(),
            autocast: None,
        },
        targeting: Targeting::default(),
        attackers: Attackers::default(),
        chase: ChaseState::default(),
    }
}
