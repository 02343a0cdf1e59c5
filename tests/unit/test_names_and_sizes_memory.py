"""Names and sizes at MQ's limits on the in-memory backends: the integration layer's
scenarios (tests/integration/test_names_and_sizes.py), run with no servers."""

from __future__ import annotations

from tests.integration import test_names_and_sizes as scenarios

test_a_48_character_name_works_and_49_is_no_name = (
    scenarios.test_a_48_character_name_works_and_49_is_no_name
)
test_characters_outside_mqs_set_name_nothing = (
    scenarios.test_characters_outside_mqs_set_name_nothing
)
test_every_character_of_mqs_set_makes_a_name = (
    scenarios.test_every_character_of_mqs_set_makes_a_name
)
test_nul_ends_a_name_trailing_blanks_are_not_part_of_it_leading_ones_are = (
    scenarios.test_nul_ends_a_name_trailing_blanks_are_not_part_of_it_leading_ones_are
)
test_empty_and_blank_names_are_unknown = scenarios.test_empty_and_blank_names_are_unknown
test_zero_length_and_exactly_maxmsgl_and_one_over = (
    scenarios.test_zero_length_and_exactly_maxmsgl_and_one_over
)
test_one_byte_over_the_queue_managers_maxmsgl_is_2031 = (
    scenarios.test_one_byte_over_the_queue_managers_maxmsgl_is_2031
)
