"""Fixtures shared by the test files, and the slow tests left out of the daily subset (pytest -m "not slow")."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# The default backend is auto: the compiled backend where it takes a game. Compiling takes seconds per game and rule
# file (and the many small files tests write are new to the on-disk cache every run), so the tests play on the Python
# engine unless they name a backend, as those of the compiled backend and of the default itself do. Subprocesses
# inherit it. RULESDSL_BACKEND=auto python -m pytest runs the rest on the default too.
os.environ.setdefault("RULESDSL_BACKEND", "python")

ALL = "every test of the file"
# Tests that take about a second or more each (whole random games, subprocesses, servers, browsers, clusters):
# CI runs them all; `python -m pytest -m "not slow"` runs the rest in a fraction of the time. A test listed
# by its function's name is slow in every parametrization.
SLOW = {
    "test_agents.py": {"test_greedy_beats_random_on_mark", "test_mcts_beats_random_on_mabula"},
    "test_arrays.py": {"test_states_read_back_from_arrays_play_on_alike",
                       "test_a_value_of_any_type_that_fits_is_held_by_its_arrays_as_it_is",
                       "test_every_part_of_the_test_game_is_met_and_read_back"},
    "test_bundle.py": {"test_games_are_played_from_the_bundle_not_from_the_file_edited_since"},
    "test_cluster.py": ALL,
    "test_compiled.py": ALL,
    "test_equivalence.py": ALL,
    "test_vector.py": ALL,
    "test_cli_backends.py": ALL,
    "test_contract.py": {"test_many_playouts_end", "test_random_playouts_keep_the_contract"},
    "test_examples.py": ALL,
    "test_fast_track.py": {"test_random_games_follow_the_spec"},
    "test_fuzz.py": ALL,
    "test_gymnasium.py": {"test_each_bundled_game_is_registered_with_gymnasium_and_passes_its_env_checker"},
    "test_ir_check.py": {"test_hostile_files_that_load_are_checked_and_outlined"},
    "test_layers.py": {"test_a_checked_module_is_found", "test_no_imports_inside_functions"},
    "test_load_limits.py": {"test_the_variants_of_a_file_share_one_load_budget"},
    "test_lists_lines_options.py": {"test_distinct_keeps_the_first_of_each_equal_value"},
    "test_lockstep_fast_track.py": ALL,
    "test_lockstep_marble_chase.py": ALL,
    "test_lockstep_mark.py": ALL,
    "test_lsp.py": {"test_a_misspelt_name_is_a_diagnostic_where_validate_puts_it", "test_a_warning_is_a_warning",
        "test_hostile_files_of_the_fuzz_corpus_get_validates_problems",
        "test_typing_is_debounced_and_only_the_last_text_is_reported",
        "test_without_pygls_the_command_says_how_to_install_it"},
    "test_lsp_jail.py": ALL,
    "test_mark.py": {"test_random_games_follow_the_spec", "test_random_games_of_the_four_row_ending_follow_the_spec"},
    "test_overlays.py": {"test_an_inherited_variant_that_the_overlay_makes_a_no_op_is_a_warning",
        "test_simulate_compares_variants_with_a_significance_test"},
    "test_parser.py": {"test_printing_with_minimal_brackets_parses_back_to_the_tree"},
    "test_pettingzoo.py": {"test_pettingzoos_api_test_passes"},
    "test_play_loop.py": {"test_play_with_agents_plays_the_game_simulate_played_with_that_seed"},
    "test_playground_browser.py": ALL,
    "test_reports.py": {"test_charts_are_the_same_bytes_every_time",
        "test_games_csv_has_one_documented_row_per_game",
        "test_lines_in_memory_with_their_compiled_games_are_reported_as_their_file",
        "test_the_html_page_escapes_what_results_and_rules_say"},
    "test_rl_actions.py": {"test_a_declared_bound_numbers_values_by_their_place_in_it",
        "test_a_huge_bound_is_a_located_error", "test_an_action_of_a_bundled_game_always_denotes_the_same_move",
        "test_every_legal_move_of_a_bundled_game_round_trips",
        "test_the_numbering_is_the_same_in_another_process_with_another_hash_seed"},
    "test_runtime_errors.py": {"test_the_command_reports_a_failing_rule_without_a_traceback"},
    "test_sandbox.py": {"test_a_move_listing_that_never_ends_is_interrupted",
        "test_a_slow_load_time_value_is_interrupted", "test_a_value_that_fills_memory_is_interrupted",
        "test_built_ins_return_only_values_of_the_language", "test_long_runs_inside_other_expressions_compile",
        "test_long_sums_compile_and_add_up"},
    "test_schema_file.py": {"test_check_jsonschema_accepts_the_examples_and_refuses_a_broken_file"},
    "test_serve_attacks.py": {"test_a_request_whose_rule_code_never_ends_is_stopped",
                              "test_random_requests_never_reach_the_catch_all"},
    "test_serve_report.py": {"test_a_results_file_of_the_folder_opens_as_its_html_report",
        "test_a_simulation_shows_the_html_report_of_its_games",
        "test_names_from_rule_and_results_files_are_escaped_in_both_reports"},
    "test_serve_scene.py": {"test_bundled_layouts_are_the_games_own",
        "test_fast_track_is_drawn_as_a_square_track_round_its_centre"},
    "test_serve_server.py": ALL,
    "test_serve_session.py": {"test_agents_at_every_seat_play_the_game_simulate_plays_with_that_seed"},
    "test_simulation.py": {"test_a_game_that_ends_on_its_last_allowed_turn_is_not_capped",
        "test_dask_local_cluster_gives_the_same_results", "test_report_writes_charts_the_text_report_and_games_csv",
        "test_results_do_not_depend_on_the_number_of_workers"},
    "test_state_properties.py": {"test_same_seed_same_game"},
    "test_untrusted_files.py": {"test_a_document_beyond_the_budget_without_aliases_is_refused",
        "test_numbering_huge_domains_as_actions_is_refused_at_the_domain"},
    "test_untrusted_runs.py": {"test_a_damaged_results_line_is_one_located_error",
        "test_a_killed_worker_ends_the_run_with_a_resume_hint", "test_workers_end_when_the_run_is_killed"},
    "test_validate_formats.py": {"test_a_valid_file_gives_an_empty_report_and_exit_code_0",
        "test_json_carries_every_problem_located_with_its_code_severity_and_hint"},
    "test_validate_play.py": {"test_the_bundled_games_fail_nowhere_in_play"},
}



def pytest_collection_modifyitems(config, items):
    for item in items:
        slow = SLOW.get(Path(str(item.fspath)).name)
        if slow is ALL or (slow and getattr(item, "originalname", item.name) in slow):
            item.add_marker(pytest.mark.slow)


@pytest.fixture
def write(tmp_path):
    """write(text, name="game") -> the path of a rule file holding `text`, in the test's own folder."""
    def write_text(text: str, name: str = "game") -> str:
        path = tmp_path / (name if name.endswith(".yaml") else f"{name}.yaml")
        path.write_text(text, encoding="utf-8")
        return str(path)
    return write_text
