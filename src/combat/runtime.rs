//! [`CombatRuntime`]: what the combat behaviours share: the catalog, the
//! pawn and line-of-sight hooks, and the ids combat relies on, resolved once.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use hecs::{Entity, World};

use super::chase::{ChasingPawn, PawnCombatant};
use super::combatant::Combatant;
use super::defs::{CombatDefs, DamageType, SpellId, Style};
use super::los::{AlwaysVisible, LineOfSight};
use super::movement::KinematicMover;
use super::native;
use super::native::CombatTags;
use super::stats::snapshot;
use crate::abilities::{AbilitySystem, Activation};
use crate::attributes::AttributeId;
use crate::catalog::Catalog;
use crate::effects::EffectId;
use crate::gas::Gas;
use crate::tags::{Tag, TagSet};
use crate::time::SimTime;

/// A definition combat relies on is missing from the catalog.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MissingDefinition {
    /// What kind of definition.
    pub kind: &'static str,
    /// Its name.
    pub name: &'static str,
}

impl fmt::Display for MissingDefinition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the combat layer needs {} `{}`, which the catalog does not define (start from the shipped content)",
            self.kind, self.name
        )
    }
}

impl std::error::Error for MissingDefinition {}

/// The catalog's combat section.
fn combat_defs(catalog: &Catalog) -> Result<Arc<CombatDefs>, MissingDefinition> {
    catalog
        .section_arc::<CombatDefs>()
        .ok_or(MissingDefinition {
            kind: "content section",
            name: "combat (build the catalog with gaskit::combat::add_content)",
        })
}

/// Shared by every combat behaviour and hook.
pub struct CombatRuntime {
    /// The catalog.
    pub catalog: Arc<Catalog>,
    /// The combat content (the catalog's combat section).
    defs: Arc<CombatDefs>,
    /// The pawn-side movement surface.
    pub pawn: Arc<dyn PawnCombatant>,
    /// Line of sight.
    pub line_of_sight: Arc<dyn LineOfSight>,
    pub(crate) attack_cooldown_effect: EffectId,
    pub(crate) damage_effect: EffectId,
    pub(crate) in_combat_effect: EffectId,
    pub(crate) dead_effect: EffectId,
    pub(crate) restore_health_effect: EffectId,
    pub(crate) food_effect: EffectId,
    pub(crate) profile_health_effect: EffectId,
    pub(crate) health: AttributeId,
    pub(crate) max_health: AttributeId,
    pub(crate) attack_speed: AttributeId,
    pub(crate) attack_cooldown: Tag,
    pub(crate) weapon_slot: Tag,
    pub(crate) ammo_slot: Tag,
    pub(crate) dead: Tag,
    /// The tags of each kind of attack's damage spec, built once (see
    /// [`damage_tags`](Self::damage_tags)).
    damage_tags: Vec<TagSet>,
    /// Attacks resolved so far (swings and casts), for throughput reports.
    attacks_resolved: AtomicU64,
}

impl CombatRuntime {
    /// A runtime over `catalog` with the shipped kinematic mover and
    /// always-visible line of sight.
    pub fn new(catalog: Arc<Catalog>) -> Result<Self, MissingDefinition> {
        let pawn = Arc::new(ChasingPawn::new(
            Arc::new(KinematicMover),
            combat_defs(&catalog)?,
        ));
        Self::with_hooks(catalog, pawn, Arc::new(AlwaysVisible))
    }

    /// A runtime with game-supplied movement and line of sight.
    pub fn with_hooks(
        catalog: Arc<Catalog>,
        pawn: Arc<dyn PawnCombatant>,
        line_of_sight: Arc<dyn LineOfSight>,
    ) -> Result<Self, MissingDefinition> {
        let effect = |name: &'static str| {
            catalog.effects().get(name).ok_or(MissingDefinition {
                kind: "effect",
                name,
            })
        };
        let attribute = |name: &'static str| {
            catalog.attributes().get(name).ok_or(MissingDefinition {
                kind: "attribute",
                name,
            })
        };
        let defs = combat_defs(&catalog)?;
        let tags = &defs.tags;
        Ok(CombatRuntime {
            attack_cooldown_effect: effect("GE_Attack_Cooldown")?,
            damage_effect: effect("GE_Damage")?,
            in_combat_effect: effect("GE_InCombat")?,
            dead_effect: effect("GE_Dead")?,
            restore_health_effect: effect("GE_Restore_Health")?,
            food_effect: effect("GE_Food")?,
            profile_health_effect: effect("GE_Profile_Health")?,
            health: attribute("Health")?,
            max_health: attribute("MaxHealth")?,
            attack_speed: attribute("AttackSpeed")?,
            attack_cooldown: tags[native::COOLDOWN_COMBAT_ATTACK],
            weapon_slot: tags[native::ITEM_SLOT_WEAPON],
            ammo_slot: tags[native::ITEM_SLOT_AMMO],
            dead: tags[native::STATUS_DEAD],
            damage_tags: damage_tag_sets(&defs),
            catalog: catalog.clone(),
            defs,
            pawn,
            line_of_sight,
            attacks_resolved: AtomicU64::new(0),
        })
    }

    /// The combat content: settings, kinds, items, spells, spellbooks.
    pub fn defs(&self) -> &CombatDefs {
        &self.defs
    }

    /// The tags combat relies on, resolved.
    pub fn tags(&self) -> &CombatTags {
        &self.defs.tags
    }

    /// How many attacks (swings and casts) have been resolved, on every
    /// context this runtime is installed on. Counted even with tracing off.
    pub fn attacks_resolved(&self) -> u64 {
        self.attacks_resolved.load(Ordering::Relaxed)
    }

    /// The tags a damage spec of `damage_type` (or of `spell`) in `style`
    /// carries: the damage type and the style (the post-execute step routes
    /// XP by them) and the hit cue, the type's or the spell's (which that
    /// step fires once the damage applied).
    pub(crate) fn damage_tags(
        &self,
        damage_type: DamageType,
        style: Style,
        spell: Option<SpellId>,
    ) -> &TagSet {
        let kind = spell.map_or(damage_type.index(), |s| DamageType::ALL.len() + s.index());
        &self.damage_tags[kind * Style::ALL.len() + style.index()]
    }

    pub(crate) fn count_attack(&self) {
        self.attacks_resolved.fetch_add(1, Ordering::Relaxed);
    }

    /// Where `entity` is at `now`.
    pub fn position(&self, world: &World, entity: Entity, now: SimTime) -> Option<super::Vec2> {
        self.pawn.position(world, entity, now)
    }

    /// True when `target` is within `range_cm` of `attacker` at `now`.
    pub fn in_range(
        &self,
        world: &World,
        attacker: Entity,
        target: Entity,
        range_cm: f64,
        now: SimTime,
    ) -> bool {
        apart_within(
            self.position(world, attacker, now),
            self.position(world, target, now),
            range_cm,
        )
    }

    /// [`in_range`](Self::in_range) for a caller that holds the world
    /// exclusively (an ability's poll): the positions are read without
    /// dynamic borrows.
    pub(crate) fn in_range_exclusive(
        &self,
        world: &mut World,
        attacker: Entity,
        target: Entity,
        range_cm: f64,
        now: SimTime,
    ) -> bool {
        apart_within(
            self.pawn.position_exclusive(world, attacker, now),
            self.pawn.position_exclusive(world, target, now),
            range_cm,
        )
    }

    /// The combatant an attack or cast `activation` is aimed at: the
    /// event's target, which must be another entity with a [`Combatant`].
    /// `Activation.Fail.NoTarget` otherwise.
    pub fn attack_target(&self, world: &World, activation: &Activation<'_>) -> Result<Entity, Tag> {
        let no_target = self.tags()[native::FAIL_NO_TARGET];
        match activation.event.target {
            Some(target)
                if target != activation.owner && world.get::<&Combatant>(target).is_ok() =>
            {
                Ok(target)
            }
            _ => Err(no_target),
        }
    }

    /// True when `entity` exists, has an ability system and is not dead
    /// at `now`.
    pub fn is_alive(&self, world: &World, entity: Entity, now: SimTime) -> bool {
        world
            .get::<&AbilitySystem>(entity)
            .is_ok_and(|s| self.lives(&s, now))
    }

    /// [`is_alive`](Self::is_alive) for a caller that holds the world
    /// exclusively: no dynamic borrow taken and given back.
    pub(crate) fn is_alive_exclusive(
        &self,
        world: &mut World,
        entity: Entity,
        now: SimTime,
    ) -> bool {
        world
            .query_one_mut::<&AbilitySystem>(entity)
            .is_ok_and(|s| self.lives(s, now))
    }

    /// The combat reading of an ability system's life: not `Status.Dead`.
    fn lives(&self, system: &AbilitySystem, now: SimTime) -> bool {
        !system.has_tag(self.catalog.effects(), now, self.dead)
    }

    /// The engage gate: can `attacker` engage `target` right now? The
    /// target must be alive, accept another attacker, and be within reach
    /// ([`in_engagement_reach`](Self::in_engagement_reach)). Returns an
    /// `Activation.Fail.*` tag when not.
    pub fn can_engage(
        &self,
        world: &World,
        gas: &Gas,
        attacker: Entity,
        target: Entity,
    ) -> Result<(), Tag> {
        let tags = self.tags();
        if !self.is_alive(world, target, gas.now()) {
            return Err(tags[native::FAIL_TARGET_DEAD]);
        }
        if !self.would_accept_attacker(world, target, attacker) {
            return Err(tags[native::FAIL_OVERWHELMED]);
        }
        if !self.in_engagement_reach(world, gas, attacker, target) {
            return Err(tags[native::FAIL_OUT_OF_RANGE]);
        }
        Ok(())
    }

    /// Is `target` within `attacker`'s engagement range (the same resolver
    /// the swing gate uses, autocast-aware) and in sight? What the walk-up
    /// walks toward and the engage gate checks.
    pub fn in_engagement_reach(
        &self,
        world: &World,
        gas: &Gas,
        attacker: Entity,
        target: Entity,
    ) -> bool {
        let Some(stats) = snapshot(self, world, attacker, gas.now()) else {
            return false;
        };
        self.within_reach(world, attacker, target, stats.range_cm, gas.now())
    }

    /// [`in_engagement_reach`](Self::in_engagement_reach) for a caller
    /// that already holds the attacker's range: within `range_cm` and in
    /// sight.
    pub(crate) fn within_reach(
        &self,
        world: &World,
        attacker: Entity,
        target: Entity,
        range_cm: f64,
        now: SimTime,
    ) -> bool {
        self.in_range(world, attacker, target, range_cm, now)
            && self.line_of_sight.visible(world, attacker, target, now)
    }

    /// [`within_reach`](Self::within_reach) for a caller that holds the
    /// world exclusively (the walk-up's poll).
    pub(crate) fn within_reach_exclusive(
        &self,
        world: &mut World,
        attacker: Entity,
        target: Entity,
        range_cm: f64,
        now: SimTime,
    ) -> bool {
        self.in_range_exclusive(world, attacker, target, range_cm, now)
            && self.line_of_sight.visible(world, attacker, target, now)
    }

    /// True while `attacker` runs its engagement loop on `target`.
    pub(crate) fn engaged_on(
        &self,
        world: &World,
        now: SimTime,
        attacker: Entity,
        target: Entity,
    ) -> bool {
        let aimed = world
            .get::<&Combatant>(attacker)
            .is_ok_and(|c| c.targeting.target == Some(target));
        aimed
            && world.get::<&AbilitySystem>(attacker).is_ok_and(|system| {
                system.has_tag(
                    self.catalog.effects(),
                    now,
                    self.tags()[native::ACTION_COMBAT_AUTO_ATTACK],
                )
            })
    }

    /// The attacker ceiling's peek: would `target` accept `attacker` now?
    /// Attackers that no longer exist are not counted.
    pub fn would_accept_attacker(&self, world: &World, target: Entity, attacker: Entity) -> bool {
        let Ok(combatant) = world.get::<&Combatant>(target) else {
            return false;
        };
        let max = self.defs.kind(combatant.kind).max_attackers;
        combatant.attackers.would_accept(world, attacker, max)
    }
}

/// Both positions known and no further apart than `range_cm`.
fn apart_within(a: Option<super::Vec2>, b: Option<super::Vec2>, range_cm: f64) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a.within(b, range_cm),
        _ => false,
    }
}

/// Every [`CombatRuntime::damage_tags`] set: the five damage types, then
/// each spell, by style.
fn damage_tag_sets(defs: &CombatDefs) -> Vec<TagSet> {
    let tags = &defs.tags;
    let weapons = DamageType::ALL
        .iter()
        .map(|t| (t.tag(tags), t.hit_cue(tags)));
    let spells = defs.spell_ids().map(|s| {
        let cue = defs
            .spell(s)
            .map_or(tags[native::CUE_HIT_MAGIC], |spell| spell.hit_cue);
        (DamageType::Magic.tag(tags), cue)
    });
    weapons
        .chain(spells)
        .flat_map(|(damage_type, cue)| {
            Style::ALL
                .iter()
                .map(move |style| [damage_type, style.tag(tags), cue].into_iter().collect())
        })
        .collect()
}
