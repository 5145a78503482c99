//! The vocabulary of the trace.

use hecs::Entity;

use crate::abilities::{AbilityId, ActivationFailure, EndReason};
use crate::attributes::AttributeId;
use crate::combat::{DamageType, ItemId, Skill, SpellId, Vec2};
use crate::effects::{CueEvent, EffectError, EffectId};
use crate::tags::Tag;
use crate::time::{SimDuration, SimTime};

/// One recorded event.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceEvent {
    /// When it happened.
    pub time: SimTime,
    /// What happened.
    pub kind: TraceKind,
}

/// Groups of events, for filtering. Combine with `|` on `as u32`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum TraceCategory {
    /// Effect application, stacking, execution, removal, blocking.
    Effects = 1,
    /// Attribute value changes.
    Attributes = 2,
    /// Gameplay cues.
    Cues = 4,
    /// Ability activation, failure and end.
    Abilities = 8,
    /// Engagements, attacks, cooldown stamps, weaves, consumables, deaths.
    Combat = 16,
    /// Chase begin, re-issue and end.
    Movement = 32,
    /// XP and level-ups.
    Progress = 64,
}

/// How an attack went.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AttackOutcome {
    /// It hit for this much (0 is a hit for zero, not a miss).
    Hit(u32),
    /// It failed its accuracy roll.
    Miss,
}

/// A step of a chase.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum ChasePhase {
    /// Started, moving to this point.
    Begin(Vec2),
    /// Re-issued the move to this point.
    Reissue(Vec2),
    /// Stopped chasing (the body keeps its last move).
    End,
}

impl TraceCategory {
    /// Every category.
    pub const ALL: u32 = u32::MAX;
}

/// Why an effect was not applied.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BlockReason {
    /// The target did not meet the effect's application requirements.
    Requirements,
    /// An active effect on the target grants immunity to it.
    Immune {
        /// The effect granting immunity.
        by: EffectId,
    },
}

/// Why an effect ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RemovalReason {
    /// Its duration ran out.
    Expired,
    /// Removed by handle, definition, tag or source on request.
    Removed,
    /// Removed by another effect's `remove_effects_with_tags`.
    RemovedBy(EffectId),
}

/// What happened.
#[derive(Clone, Debug, PartialEq)]
pub enum TraceKind {
    /// A duration or infinite effect became active (or gained a stack).
    EffectApplied {
        /// Who received it.
        target: Entity,
        /// Who applied it.
        source: Option<Entity>,
        /// Which effect.
        effect: EffectId,
        /// Stack count after application.
        stacks: u32,
        /// Its duration, `None` when infinite.
        duration: Option<SimDuration>,
    },
    /// An instant or periodic execution changed base values.
    EffectExecuted {
        /// Who received it.
        target: Entity,
        /// Who applied it.
        source: Option<Entity>,
        /// Which effect.
        effect: EffectId,
    },
    /// An application was refused.
    EffectBlocked {
        /// The intended target.
        target: Entity,
        /// Which effect.
        effect: EffectId,
        /// Why.
        reason: BlockReason,
    },
    /// An active effect ended.
    EffectRemoved {
        /// Who had it.
        target: Entity,
        /// Which effect.
        effect: EffectId,
        /// Why.
        reason: RemovalReason,
    },
    /// An active effect stopped (inhibited) or resumed applying.
    EffectInhibited {
        /// Who has it.
        target: Entity,
        /// Which effect.
        effect: EffectId,
        /// `true` when it stopped applying.
        inhibited: bool,
    },
    /// A current attribute value changed.
    AttributeChanged {
        /// Whose.
        entity: Entity,
        /// Which attribute.
        attribute: AttributeId,
        /// Before.
        old: f64,
        /// After.
        new: f64,
    },
    /// An effect could not be applied (a behaviour's application failed).
    EffectFailed {
        /// The intended target.
        target: Entity,
        /// Which effect.
        effect: EffectId,
        /// Why.
        error: EffectError,
    },
    /// An ability activated.
    AbilityActivated {
        /// Who runs it.
        owner: Entity,
        /// Which ability.
        ability: AbilityId,
        /// The triggering event's target.
        target: Option<Entity>,
    },
    /// An ability refused to activate.
    AbilityFailed {
        /// Who tried.
        owner: Entity,
        /// Which ability.
        ability: AbilityId,
        /// Why.
        reason: ActivationFailure,
    },
    /// An active ability ended.
    AbilityEnded {
        /// Who ran it.
        owner: Entity,
        /// Which ability.
        ability: AbilityId,
        /// Why.
        reason: EndReason,
    },
    /// An attacker engaged a target.
    Engaged {
        /// Who attacks.
        attacker: Entity,
        /// Whom.
        target: Entity,
    },
    /// The active target or attack channel changed (both change together).
    TargetChanged {
        /// Whose targeting.
        entity: Entity,
        /// The new target (`None`: cleared).
        target: Option<Entity>,
        /// The leaf damage type of the attack channel.
        channel: Option<DamageType>,
    },
    /// An attack resolved.
    Attack {
        /// Who attacked.
        attacker: Entity,
        /// Whom.
        target: Entity,
        /// Hit (with amount) or miss.
        outcome: AttackOutcome,
        /// The damage type.
        damage_type: DamageType,
        /// True for a cast from the weave queue.
        weaved: bool,
        /// The spell, for casts.
        spell: Option<SpellId>,
    },
    /// An attack could not happen (no ammunition, no runes).
    AttackFailed {
        /// Who tried.
        attacker: Entity,
        /// At whom.
        target: Entity,
        /// The `Activation.Fail.*` reason.
        reason: Tag,
    },
    /// A cooldown was stamped.
    CooldownStamped {
        /// On whom.
        entity: Entity,
        /// The cooldown tag.
        cooldown: Tag,
        /// For how long.
        duration: SimDuration,
    },
    /// A chase step.
    Chase {
        /// Who chases.
        chaser: Entity,
        /// Whom.
        target: Entity,
        /// What happened.
        phase: ChasePhase,
    },
    /// A spell entered the weave queue (last click wins).
    WeaveQueued {
        /// Whose queue.
        entity: Entity,
        /// The engaged target.
        target: Entity,
        /// The spell queued.
        spell: SpellId,
        /// The spell it replaced, if any.
        replaced: Option<SpellId>,
    },
    /// A queued weave was dropped (disengage, target death).
    WeaveDropped {
        /// Whose queue.
        entity: Entity,
        /// The spell dropped.
        spell: SpellId,
    },
    /// One ammunition was used.
    AmmoSpent {
        /// Who shot.
        entity: Entity,
        /// How many are left in the slot.
        left: u32,
    },
    /// A spell's runes were used.
    RunesSpent {
        /// Who cast.
        entity: Entity,
        /// The spell.
        spell: SpellId,
    },
    /// XP was granted.
    Xp {
        /// To whom.
        entity: Entity,
        /// Which skill.
        skill: Skill,
        /// How much, in hundredths.
        centi_xp: u64,
    },
    /// A skill reached a new level.
    LevelUp {
        /// Whose.
        entity: Entity,
        /// Which skill.
        skill: Skill,
        /// The new level.
        level: u32,
    },
    /// `Status.InCombat` was gained after a clean expiry.
    EnteredCombat {
        /// Who.
        entity: Entity,
    },
    /// The death flow ran.
    Died {
        /// Who died.
        entity: Entity,
        /// Items kept, most valuable first.
        kept: Vec<(ItemId, u32)>,
        /// Items moved to cold storage.
        stored: Vec<(ItemId, u32)>,
    },
    /// A respawn.
    Respawned {
        /// Who.
        entity: Entity,
        /// Where.
        at: Vec2,
    },
    /// The combat style changed.
    StyleChanged {
        /// Whose.
        entity: Entity,
        /// The new style.
        style: Tag,
    },
    /// The autocast spell changed.
    AutocastChanged {
        /// Whose.
        entity: Entity,
        /// The new spell (`None`: cleared).
        spell: Option<SpellId>,
    },
    /// A profile was saved.
    Saved {
        /// Whose.
        entity: Entity,
    },
    /// Food was eaten.
    Ate {
        /// Who.
        entity: Entity,
        /// What.
        item: ItemId,
    },
    /// A gameplay cue fired.
    Cue {
        /// On whom.
        target: Entity,
        /// Caused by whom.
        source: Option<Entity>,
        /// The `GameplayCue.*` tag.
        cue: Tag,
        /// Execute, add or remove.
        event: CueEvent,
    },
}

impl TraceKind {
    /// The event's name in the JSON form (`snake_case`).
    pub fn name(&self) -> &'static str {
        match self {
            TraceKind::EffectApplied { .. } => "effect_applied",
            TraceKind::EffectExecuted { .. } => "effect_executed",
            TraceKind::EffectBlocked { .. } => "effect_blocked",
            TraceKind::EffectRemoved { .. } => "effect_removed",
            TraceKind::EffectInhibited { .. } => "effect_inhibited",
            TraceKind::EffectFailed { .. } => "effect_failed",
            TraceKind::AttributeChanged { .. } => "attribute_changed",
            TraceKind::AbilityActivated { .. } => "ability_activated",
            TraceKind::AbilityFailed { .. } => "ability_failed",
            TraceKind::AbilityEnded { .. } => "ability_ended",
            TraceKind::Engaged { .. } => "engaged",
            TraceKind::TargetChanged { .. } => "target_changed",
            TraceKind::Attack { .. } => "attack",
            TraceKind::AttackFailed { .. } => "attack_failed",
            TraceKind::CooldownStamped { .. } => "cooldown_stamped",
            TraceKind::Chase { .. } => "chase",
            TraceKind::WeaveQueued { .. } => "weave_queued",
            TraceKind::WeaveDropped { .. } => "weave_dropped",
            TraceKind::AmmoSpent { .. } => "ammo_spent",
            TraceKind::RunesSpent { .. } => "runes_spent",
            TraceKind::Xp { .. } => "xp",
            TraceKind::LevelUp { .. } => "level_up",
            TraceKind::EnteredCombat { .. } => "entered_combat",
            TraceKind::Died { .. } => "died",
            TraceKind::Respawned { .. } => "respawned",
            TraceKind::StyleChanged { .. } => "style_changed",
            TraceKind::AutocastChanged { .. } => "autocast_changed",
            TraceKind::Ate { .. } => "ate",
            TraceKind::Saved { .. } => "saved",
            TraceKind::Cue { .. } => "cue",
        }
    }

    /// `(subject, other)`: the entity the event happened to or was done by
    /// (the name column of the text form, `source` in JSON), and the other
    /// entity involved (`target` in JSON), if any.
    pub fn parties(&self) -> (Entity, Option<Entity>) {
        match *self {
            TraceKind::EffectApplied { target, source, .. }
            | TraceKind::EffectExecuted { target, source, .. } => (target, source),
            TraceKind::EffectBlocked { target, .. }
            | TraceKind::EffectRemoved { target, .. }
            | TraceKind::EffectInhibited { target, .. }
            | TraceKind::EffectFailed { target, .. } => (target, None),
            TraceKind::AttributeChanged { entity, .. }
            | TraceKind::CooldownStamped { entity, .. }
            | TraceKind::WeaveDropped { entity, .. }
            | TraceKind::AmmoSpent { entity, .. }
            | TraceKind::RunesSpent { entity, .. }
            | TraceKind::Xp { entity, .. }
            | TraceKind::LevelUp { entity, .. }
            | TraceKind::EnteredCombat { entity }
            | TraceKind::Died { entity, .. }
            | TraceKind::Respawned { entity, .. }
            | TraceKind::StyleChanged { entity, .. }
            | TraceKind::AutocastChanged { entity, .. }
            | TraceKind::Ate { entity, .. }
            | TraceKind::Saved { entity } => (entity, None),
            TraceKind::AbilityActivated { owner, target, .. } => (owner, target),
            TraceKind::AbilityFailed { owner, .. } | TraceKind::AbilityEnded { owner, .. } => {
                (owner, None)
            }
            TraceKind::Engaged { attacker, target }
            | TraceKind::Attack {
                attacker, target, ..
            }
            | TraceKind::AttackFailed {
                attacker, target, ..
            } => (attacker, Some(target)),
            TraceKind::TargetChanged { entity, target, .. } => (entity, target),
            TraceKind::Chase { chaser, target, .. } => (chaser, Some(target)),
            TraceKind::WeaveQueued { entity, target, .. } => (entity, Some(target)),
            TraceKind::Cue { target, source, .. } => (target, source),
        }
    }

    /// The category the event is filtered by.
    pub fn category(&self) -> TraceCategory {
        match self {
            TraceKind::EffectApplied { .. }
            | TraceKind::EffectExecuted { .. }
            | TraceKind::EffectBlocked { .. }
            | TraceKind::EffectRemoved { .. }
            | TraceKind::EffectInhibited { .. }
            | TraceKind::EffectFailed { .. } => TraceCategory::Effects,
            TraceKind::AbilityActivated { .. }
            | TraceKind::AbilityFailed { .. }
            | TraceKind::AbilityEnded { .. } => TraceCategory::Abilities,
            TraceKind::AttributeChanged { .. } => TraceCategory::Attributes,
            TraceKind::Cue { .. } => TraceCategory::Cues,
            TraceKind::Engaged { .. }
            | TraceKind::TargetChanged { .. }
            | TraceKind::Attack { .. }
            | TraceKind::AttackFailed { .. }
            | TraceKind::CooldownStamped { .. }
            | TraceKind::WeaveQueued { .. }
            | TraceKind::WeaveDropped { .. }
            | TraceKind::AmmoSpent { .. }
            | TraceKind::RunesSpent { .. }
            | TraceKind::EnteredCombat { .. }
            | TraceKind::Died { .. }
            | TraceKind::Respawned { .. }
            | TraceKind::StyleChanged { .. }
            | TraceKind::AutocastChanged { .. }
            | TraceKind::Ate { .. }
            | TraceKind::Saved { .. } => TraceCategory::Combat,
            TraceKind::Chase { .. } => TraceCategory::Movement,
            TraceKind::Xp { .. } | TraceKind::LevelUp { .. } => TraceCategory::Progress,
        }
    }
}
