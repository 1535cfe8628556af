"""What each named check claims, in the words the learner reads beside its ✓ or ✗.

The words live in locales/<edition>.json ("claims"); a check's name is also the key of its hints.
{fields} are filled in per input.
"""

from .. import i18n

CLAIMS = i18n.Section("claims")
