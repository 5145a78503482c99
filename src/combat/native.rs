//! The tags the combat layer relies on, resolved once when its content is
//! compiled (see [`crate::native_tags!`]): `defs.tags[native::STATUS_DEAD]`
//! is an array read. Some are never read by code (the parents
//! `Combat.DamageType` and `Action.Modal`, the death cue, a few action and
//! state tags): the shipped content and a game's data name them, and
//! listing them here makes a catalog without them a load error rather
//! than content that silently never matches.

crate::native_tags! {
    /// The combat layer's native tag set.
    pub struct CombatNatives;
    /// `Combat.DamageType`: parent of the five damage types.
    COMBAT_DAMAGE_TYPE => "Combat.DamageType",
    /// `Combat.DamageType.Stab`.
    COMBAT_DAMAGE_TYPE_STAB => "Combat.DamageType.Stab",
    /// `Combat.DamageType.Slash`.
    COMBAT_DAMAGE_TYPE_SLASH => "Combat.DamageType.Slash",
    /// `Combat.DamageType.Crush`.
    COMBAT_DAMAGE_TYPE_CRUSH => "Combat.DamageType.Crush",
    /// `Combat.DamageType.Ranged`.
    COMBAT_DAMAGE_TYPE_RANGED => "Combat.DamageType.Ranged",
    /// `Combat.DamageType.Magic`.
    COMBAT_DAMAGE_TYPE_MAGIC => "Combat.DamageType.Magic",
    /// `Combat.Style`: parent of the three styles.
    COMBAT_STYLE => "Combat.Style",
    /// `Combat.Style.Aggressive`: the default style.
    COMBAT_STYLE_AGGRESSIVE => "Combat.Style.Aggressive",
    /// `Combat.Style.Defensive`.
    COMBAT_STYLE_DEFENSIVE => "Combat.Style.Defensive",
    /// `Combat.Style.Controlled`.
    COMBAT_STYLE_CONTROLLED => "Combat.Style.Controlled",
    /// `Combat.Event.EnterCombat`: once per clean entry into combat.
    COMBAT_EVENT_ENTER_COMBAT => "Combat.Event.EnterCombat",
    /// `Combat.Event.Death`: health reached zero.
    COMBAT_EVENT_DEATH => "Combat.Event.Death",
    /// `Combat.Event.Hit`: an attack landed.
    COMBAT_EVENT_HIT => "Combat.Event.Hit",
    /// `Combat.Event.Miss`: an attack missed.
    COMBAT_EVENT_MISS => "Combat.Event.Miss",
    /// `GameplayCue`: parent of every cue.
    GAMEPLAY_CUE => "GameplayCue",
    /// `GameplayCue.Combat.Hit.Stab`.
    CUE_HIT_STAB => "GameplayCue.Combat.Hit.Stab",
    /// `GameplayCue.Combat.Hit.Slash`.
    CUE_HIT_SLASH => "GameplayCue.Combat.Hit.Slash",
    /// `GameplayCue.Combat.Hit.Crush`.
    CUE_HIT_CRUSH => "GameplayCue.Combat.Hit.Crush",
    /// `GameplayCue.Combat.Hit.Ranged`.
    CUE_HIT_RANGED => "GameplayCue.Combat.Hit.Ranged",
    /// `GameplayCue.Combat.Hit.Magic`.
    CUE_HIT_MAGIC => "GameplayCue.Combat.Hit.Magic",
    /// `GameplayCue.Combat.Death`.
    CUE_DEATH => "GameplayCue.Combat.Death",
    /// `Action.Trigger.QueuedInteract`: walk up to the target, then send the
    /// payload interaction.
    TRIGGER_QUEUED_INTERACT => "Action.Trigger.QueuedInteract",
    /// `Action.QueuedInteract`: ability tag and owned tag of the walk-up.
    ACTION_QUEUED_INTERACT => "Action.QueuedInteract",
    /// `Action.Trigger.Combat.Engage`: starts auto-attack.
    TRIGGER_ENGAGE => "Action.Trigger.Combat.Engage",
    /// `Action.Trigger.Combat.Cast`: a manual cast, or a weave while engaged.
    TRIGGER_CAST => "Action.Trigger.Combat.Cast",
    /// `Action.Trigger.Combat.AutocastSet`: set or clear the autocast spell.
    TRIGGER_AUTOCAST_SET => "Action.Trigger.Combat.AutocastSet",
    /// `Action.Trigger.Combat.Disengage`: ends auto-attack.
    TRIGGER_DISENGAGE => "Action.Trigger.Combat.Disengage",
    /// `Action.Trigger.Combat.SetStyle`: switch style.
    TRIGGER_SET_STYLE => "Action.Trigger.Combat.SetStyle",
    /// `Action.Trigger.Ability.Eat`.
    TRIGGER_EAT => "Action.Trigger.Ability.Eat",
    /// `Action.Combat.AutoAttack`: ability tag and owned tag of auto-attack.
    ACTION_COMBAT_AUTO_ATTACK => "Action.Combat.AutoAttack",
    /// `Action.Combat.CastSpell`: owned while a manual cast resolves.
    ACTION_COMBAT_CAST_SPELL => "Action.Combat.CastSpell",
    /// `Action.Combat.Death`: owned while the death flow runs.
    ACTION_COMBAT_DEATH => "Action.Combat.Death",
    /// `Action.Modal`: parent of every modal; any of them cancels combat.
    ACTION_MODAL => "Action.Modal",
    /// `Cooldown.Combat.Attack`: the shared attack tick.
    COOLDOWN_COMBAT_ATTACK => "Cooldown.Combat.Attack",
    /// `Cooldown.Combat.Cast`: the free-action anti-spam gate.
    COOLDOWN_COMBAT_CAST => "Cooldown.Combat.Cast",
    /// `Status.Dead`.
    STATUS_DEAD => "Status.Dead",
    /// `Status.Stunned`.
    STATUS_STUNNED => "Status.Stunned",
    /// `Status.InCombat`.
    STATUS_IN_COMBAT => "Status.InCombat",
    /// `State.Moving`: deliberately never a combat cancel tag.
    STATE_MOVING => "State.Moving",
    /// `State.Chasing`: held while a chase runs.
    STATE_CHASING => "State.Chasing",
    /// `Item.Slot.Weapon`.
    ITEM_SLOT_WEAPON => "Item.Slot.Weapon",
    /// `Item.Slot.Ammo`.
    ITEM_SLOT_AMMO => "Item.Slot.Ammo",
    /// `Skill.Combat.Melee`.
    SKILL_MELEE => "Skill.Combat.Melee",
    /// `Skill.Combat.Ranged`.
    SKILL_RANGED => "Skill.Combat.Ranged",
    /// `Skill.Combat.Magic`.
    SKILL_MAGIC => "Skill.Combat.Magic",
    /// `Skill.Combat.Defense`.
    SKILL_DEFENSE => "Skill.Combat.Defense",
    /// `Skill.Combat.Hitpoints`.
    SKILL_HITPOINTS => "Skill.Combat.Hitpoints",
    /// `Spellbook.Standard`: the fallback spellbook.
    SPELLBOOK_STANDARD => "Spellbook.Standard",
    /// `SetByCaller.Heal`: amount healed, as negative damage.
    SET_BY_CALLER_HEAL => "SetByCaller.Heal",
    /// `Activation.Fail.InvalidPayload` (a core reason combat reports too).
    FAIL_INVALID_PAYLOAD => "Activation.Fail.InvalidPayload",
    /// `Activation.Fail.AlreadyActive` (a core reason combat reports too):
    /// an engage of the target already engaged.
    FAIL_ALREADY_ACTIVE => "Activation.Fail.AlreadyActive",
    /// `Activation.Fail.NoTarget`.
    FAIL_NO_TARGET => "Activation.Fail.NoTarget",
    /// `Activation.Fail.TargetDead`.
    FAIL_TARGET_DEAD => "Activation.Fail.TargetDead",
    /// `Activation.Fail.OutOfRange`: "Out of range."
    FAIL_OUT_OF_RANGE => "Activation.Fail.OutOfRange",
    /// `Activation.Fail.Overwhelmed`: the attacker ceiling is reached.
    FAIL_OVERWHELMED => "Activation.Fail.Overwhelmed",
    /// `Activation.Fail.NotLearned`.
    FAIL_NOT_LEARNED => "Activation.Fail.NotLearned",
    /// `Activation.Fail.LevelTooLow`.
    FAIL_LEVEL_TOO_LOW => "Activation.Fail.LevelTooLow",
    /// `Activation.Fail.NoRunes`.
    FAIL_NO_RUNES => "Activation.Fail.NoRunes",
    /// `Activation.Fail.NoAmmo`.
    FAIL_NO_AMMO => "Activation.Fail.NoAmmo",
    /// `Activation.Fail.WrongTarget`: a weave aimed at another target.
    FAIL_WRONG_TARGET => "Activation.Fail.WrongTarget",
    /// `Activation.Fail.NothingToEat`.
    FAIL_NOTHING_TO_EAT => "Activation.Fail.NothingToEat",
}

/// The combat tag table, resolved against one catalog's registry.
pub type CombatTags = crate::NativeTags<CombatNatives>;
