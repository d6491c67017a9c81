"""Fixtures shared by the test files, and the slow tests left out of the daily subset (pytest -m "not slow")."""

from __future__ import annotations

import gc
import os
import sys
from pathlib import Path

import pytest

# The default backend is auto: the compiled backend where it takes a game. Compiling takes seconds per game and rule
# file (and the many small files tests write are new to the on-disk cache every run), so the tests play on the Python
# engine unless they name a backend, as those of the compiled backend and of the default itself do. Subprocesses
# inherit it. RULESDSL_BACKEND=auto python -m pytest runs the rest on the default too.
os.environ.setdefault("RULESDSL_BACKEND", "python")

# pytest rewrites the asserts of every test module as it imports it, about ten seconds for all of them, and keeps
# the result in the tests' __pycache__, unless PYTHONDONTWRITEBYTECODE is set (as on some machines), when every run
# and every worker of `-n` rewrites them all again. Here, what is imported after this conftest (the test modules
# first) keeps its compiled code in __pycache__ as Python does by default.
sys.dont_write_bytecode = False

ALL = "every test of the file"
# Tests that take about a second or more each (whole random games, subprocesses, servers, browsers, clusters):
# CI runs them all; `python -m pytest -m "not slow"` runs the rest in a fraction of the time. A test listed
# by its function's name is slow in every parametrization.
SLOW = {
    "test_agents.py": {"test_greedy_beats_random_on_mark", "test_mcts_beats_random_on_mabula"},
    "test_arrays.py": {"test_a_value_of_any_type_that_fits_is_held_by_its_arrays_as_it_is",
        "test_every_part_of_the_test_game_is_met_and_read_back", "test_states_read_back_from_arrays_play_on_alike"},
    "test_benchmark.py": {"test_two_checkouts_are_compared_in_one_run"},
    "test_budgeted_calls.py": {"test_commands_meeting_rule_code_that_never_ends_exit_1",
        "test_every_call_of_rule_code_is_budgeted"},
    "test_bundle.py": {"test_games_are_played_from_the_bundle_not_from_the_file_edited_since",
        "test_results_files_that_record_no_hash_still_resume",
        "test_results_record_the_hash_and_resume_refuses_rules_changed_since"},
    "test_cli.py": {"test_a_list_option_on_the_command_line",
        "test_a_saved_state_reads_back_and_a_damaged_one_is_refused", "test_games_lists_bundled_games",
        "test_simulate_reports_and_writes_results"},
    "test_choices.py": {"test_compiled_code_lists_the_same_combinations_and_permutations",
        "test_a_choice_past_the_limit_or_of_a_size_below_0_is_the_same_located_error_in_compiled_code"},
    "test_cli_backends.py": ALL,
    "test_cluster.py": ALL,
    "test_compiled.py": ALL,
    "test_compiled_runtime.py": ALL,
    "test_determinize.py": {"test_games_with_hidden_information_play_with_the_search_agent",
        "test_a_secret_draw_is_sampled_from_its_posterior_given_the_public_evidence",
        "test_a_secret_choice_is_sampled_uniformly_among_the_legal_ones",
        "test_cards_a_seat_holds_unseen_are_drawn_from_those_it_did_not_see_dealt"},
    "test_compiler.py": {"test_verify_accepts_what_the_compiler_emits"},
    "test_contract.py": {"test_many_playouts_end", "test_playouts_are_deterministic",
        "test_random_playouts_keep_the_contract"},
    "test_docs_snippets.py": {"test_console_snippet_prints_what_it_shows", "test_python_snippet_runs_as_printed"},
    "test_emit.py": {"test_a_loop_over_the_board_reads_the_cells_itself",
        "test_compile_lists_what_it_generated_and_shows_the_form"},
    "test_equivalence.py": ALL,
    "test_end_timing.py": {"test_both_backends_end_alike",
        "test_a_tiered_step_has_a_move_when_any_tier_has_one_on_both_backends"},
    "test_error_codes.py": {"test_every_code_a_bad_rule_file_gets_is_in_the_table",
        "test_every_code_the_source_gives_is_in_the_table"},
    "test_examples.py": ALL,
    "test_fast_track.py": {"test_random_games_follow_the_spec"},
    "test_fuzz.py": ALL,
    "test_gymnasium.py": {"test_each_bundled_game_is_registered_with_gymnasium_and_passes_its_env_checker"},
    "test_ir.py": {"test_a_long_run_of_operators_in_a_rule_lowers_without_recursion"},
    "test_ir_check.py": {"test_every_bundled_game_is_checked_with_located_reasons",
        "test_every_bundled_game_lies_in_the_compiled_subset",
        "test_hostile_files_that_load_are_checked_and_outlined",
        "test_the_text_of_a_lowered_expression_parses_back_to_its_tree",
        "test_the_text_of_any_lowered_tree_parses_back_to_it"},
    "test_jail.py": {"test_a_job_over_its_budget_is_killed_and_the_next_runs_in_a_new_child",
        "test_a_stopped_job_says_which_rule_was_running", "test_calls_a_total_does_not_make_itself_do_not_count",
        "test_each_unit_of_a_job_has_its_own_budget", "test_the_board_attributes_of_a_load_share_its_budget",
        "test_the_lets_of_a_load_share_its_budget", "test_the_moves_of_a_game_share_its_budget",
        "test_what_python_cannot_stop_stops_the_job_not_the_caller"},
    "test_lang_properties.py": {"test_compiler_agrees_with_evaluator"},
    "test_layers.py": {"test_a_checked_module_is_found", "test_every_module_belongs_to_a_stated_layer",
        "test_generated_code_names_only_the_model_position", "test_imports_only_go_down",
        "test_no_cycles_within_a_layer", "test_no_imports_inside_functions",
        "test_the_base_install_runs_without_the_optional_extras"},
    "test_lists_lines_options.py": {"test_distinct_keeps_the_first_of_each_equal_value"},
    "test_load_limits.py": {"test_the_variants_of_a_file_share_one_load_budget"},
    "test_lockstep_fast_track.py": ALL,
    "test_lockstep_marble_chase.py": ALL,
    "test_lockstep_mark.py": ALL,
    "test_lsp.py": {"test_a_character_index_survives_the_round_trip_through_code_units",
        "test_a_misspelt_name_is_a_diagnostic_where_validate_puts_it",
        "test_a_problem_in_the_base_file_is_shown_on_the_first_line", "test_a_warning_is_a_warning",
        "test_hostile_files_of_the_fuzz_corpus_get_validates_problems",
        "test_typing_is_debounced_and_only_the_last_text_is_reported",
        "test_without_pygls_the_command_says_how_to_install_it"},
    "test_lsp_jail.py": ALL,
    "test_mark.py": {"test_random_games_follow_the_spec", "test_random_games_of_the_four_row_ending_follow_the_spec"},
    "test_openspiel.py": {"test_a_bundled_game_loads_by_name_in_a_new_process",
        "test_a_game_played_for_chips_states_its_utility_and_range_and_solves",
        "test_a_pickled_game_of_a_rule_file_unpickles_in_another_process"},
    "test_overlays.py": {"test_a_variant_an_overlay_adds_may_delete_a_key_of_the_base_with_null",
        "test_a_variant_the_overlay_describes_anew_or_that_still_changes_something_is_not_reported",
        "test_an_inherited_variant_that_the_overlay_makes_a_no_op_is_a_warning",
        "test_an_inherited_variant_that_undoes_the_overlay_is_a_warning",
        "test_simulate_compares_variants_with_a_significance_test", "test_validate_and_simulate_accept_overlays"},
    "test_parser.py": {"test_printing_with_minimal_brackets_parses_back_to_the_tree"},
    "test_repeated_parts.py": {"test_compiled_backend_takes_repeated_parts_and_refuses_what_it_cannot_hold_located",
        "test_fixed_parts_reaching_one_position_are_one_move",
        "test_validate_play_passes_the_games_whose_moves_print_apart",
        "test_validate_play_reports_two_moves_that_print_alike"},
    "test_pettingzoo.py": {"test_chance_inside_step_follows_the_seed_given_to_reset",
        "test_pettingzoos_api_test_passes"},
    "test_pickle.py": {"test_an_unpickled_state_plays_on_as_the_original"},
    "test_play_loop.py": {"test_a_game_out_of_range_is_a_usage_error",
        "test_play_with_agents_plays_the_game_simulate_played_with_that_seed",
        "test_replay_step_waits_for_enter_and_q_stops"},
    "test_playground_browser.py": ALL,
    "test_playground_panel_browser.py": {
        "test_a_folder_without_rule_files_offers_the_bundled_games_and_the_tutorial",
        "test_stepping_back_and_forward_changes_the_board_and_a_move_there_drops_the_rest",
        "test_the_panel_shows_seats_scores_money_and_the_dice_as_faces"},
    "test_profile.py": {"test_every_name_is_the_rule_files_or_a_built_in"},
    "test_quality.py": {"test_a_run_of_two_rule_files_resumes_to_the_same_lines",
        "test_damaged_quality_fields_are_located_errors",
        "test_results_files_of_different_player_counts_are_reported_but_not_paired",
        "test_scores_are_traced_only_when_asked_for", "test_two_results_files_of_the_same_seeds_are_paired",
        "test_two_rule_files_compared_in_one_run_end_to_end"},
    "test_reads.py": {"test_chance_tables_kept_while_unchanged_agree_with_listing_afresh"},
    "test_refill.py": {"test_the_compiled_subset_and_backend_take_it"},
    "test_returns.py": {"test_a_results_file_of_a_game_without_returns_shows_none",
        "test_report_reads_the_returns_and_compares_them_between_variants"},
    "test_reports.py": {"test_a_bad_line_stops_replay_on_workers_with_its_location",
        "test_charts_are_the_same_bytes_every_time", "test_games_csv_has_one_documented_row_per_game",
        "test_lines_in_memory_with_their_compiled_games_are_reported_as_their_file",
        "test_progress_off_a_terminal_is_a_plain_line", "test_replay_on_two_workers_says_what_one_says",
        "test_runs_of_other_seeds_are_compared_unpaired_with_welch",
        "test_the_html_page_escapes_what_results_and_rules_say", "test_the_html_page_holds_every_section"},
    "test_rl_actions.py": {"test_a_declared_bound_numbers_values_by_their_place_in_it",
        "test_a_huge_bound_is_a_located_error", "test_an_action_of_a_bundled_game_always_denotes_the_same_move",
        "test_every_legal_move_of_a_bundled_game_round_trips",
        "test_the_numbering_is_the_same_in_another_process_with_another_hash_seed"},
    "test_runtime_errors.py": {"test_the_command_reports_a_failing_rule_without_a_traceback"},
    "test_secret_warnings.py": {"test_the_bundled_games_warn_only_of_true_leaks",
        "test_a_secret_is_followed_along_long_chains_of_functions_and_procedures"},
    "test_sandbox.py": {"test_a_game_that_holds_much_but_no_more_plays_on", "test_a_huge_grid_is_refused",
        "test_a_huge_starting_value_is_refused_at_its_declaration",
        "test_a_move_listing_that_never_ends_is_interrupted",
        "test_a_move_that_keeps_growing_what_the_game_holds_is_stopped_naming_rule_and_turn",
        "test_a_slow_load_time_value_is_interrupted", "test_a_value_that_fills_memory_is_interrupted",
        "test_built_ins_return_only_values_of_the_language", "test_long_runs_inside_other_expressions_compile",
        "test_long_sums_compile_and_add_up", "test_the_bundled_games_never_hold_more_than_counted",
        "test_what_the_position_holds_is_never_more_than_counted"},
    "test_schema_file.py": {"test_check_jsonschema_accepts_the_examples_and_refuses_a_broken_file",
        "test_every_bundled_and_example_file_matches_the_schema"},
    "test_serve_app.py": {"test_a_hostile_file_cannot_hang_the_server",
        "test_a_simulation_runs_in_the_background_and_reports", "test_any_game_of_a_results_file_is_replayed"},
    "test_serve_attacks.py": {"test_a_simulation_that_never_ends_is_stopped_at_its_limit",
        "test_a_request_whose_rule_code_never_ends_is_stopped",
        "test_fields_of_the_wrong_kind_are_refused", "test_random_requests_never_reach_the_catch_all",
        "test_simulations_beyond_those_running_are_refused_busy"},
    "test_serve_panel.py": {"test_each_bundled_game_s_status_fields_through_the_server"},
    "test_serve_report.py": {"test_a_results_file_of_the_folder_opens_as_its_html_report",
        "test_a_simulation_shows_the_html_report_of_its_games",
        "test_names_from_rule_and_results_files_are_escaped_in_both_reports",
        "test_only_results_files_of_the_folder_are_reported_with_located_errors",
        "test_the_report_reads_the_rules_the_simulation_played_not_the_saved_file"},
    "test_serve_runner.py": {"test_a_job_goes_home_while_its_home_is_free_and_elsewhere_when_it_is_busy",
        "test_a_full_queue_refuses_at_once_and_the_pool_serves_again_after",
        "test_a_job_that_overruns_its_time_is_stopped_and_the_next_runs_in_a_new_child",
        "test_a_pool_stops_a_job_that_runs_too_long_by_the_clock"},
    "test_serve_scene.py": {"test_bundled_layouts_are_the_games_own",
        "test_fast_track_is_drawn_as_a_square_track_round_its_centre"},
    "test_serve_server.py": ALL,
    "test_serve_session.py": {"test_agents_at_every_seat_play_the_game_simulate_plays_with_that_seed",
        "test_explaining_a_click_has_a_budget_and_names_the_rule"},
    "test_simulation.py": {"test_resume_refuses_a_stream_it_cannot_continue",
        "test_a_game_that_ends_on_its_last_allowed_turn_is_not_capped",
        "test_an_interrupted_run_resumes_without_repeating_or_losing_games",
        "test_dask_local_cluster_gives_the_same_results", "test_report_writes_charts_the_text_report_and_games_csv",
        "test_results_and_logs_of_the_old_stream_still_replay",
        "test_results_do_not_depend_on_the_number_of_workers"},
    "test_state_properties.py": {"test_a_clone_shares_nothing_that_changes", "test_same_seed_same_game"},
    "test_suite.py": {"test_every_slow_test_named_exists"},
    "test_typed_errors.py": {"test_a_bad_rule_file_s_problem_has_a_code_and_fields"},
    "test_types.py": {"test_the_checker_refuses_only_what_fails"},
    "test_untrusted_files.py": {"test_a_document_beyond_the_budget_without_aliases_is_refused",
        "test_any_identifier_in_any_place_behaves_as_itself_or_is_refused_where_declared",
        "test_numbering_huge_domains_as_actions_is_refused_at_the_domain"},
    "test_untrusted_runs.py": {"test_a_damaged_log_is_one_located_error",
        "test_a_damaged_results_line_is_one_located_error", "test_a_damaged_state_is_reported_not_a_traceback",
        "test_a_game_without_an_end_stops_at_the_default_turn_cap",
        "test_a_huge_state_or_log_is_refused_by_its_size_before_it_is_read",
        "test_a_job_stopped_mid_rule_is_located_at_the_rule", "test_a_killed_worker_ends_the_run_with_a_resume_hint",
        "test_a_log_naming_a_system_file_is_refused_and_rules_can_be_given",
        "test_a_pipe_that_never_ends_is_read_no_further_than_the_limit",
        "test_a_record_in_a_state_has_names_for_keys",
        "test_a_results_file_is_read_line_by_line_and_each_line_is_bounded",
        "test_a_resumed_run_keeps_one_rules_line", "test_a_rule_file_beside_the_results_is_used",
        "test_a_rule_file_cannot_lift_the_turn_cap_past_its_maximum",
        "test_a_state_holding_more_than_a_game_may_keep_is_refused", "test_a_state_that_is_not_json_is_located",
        "test_an_error_quoting_the_file_escapes_it_and_keeps_its_caret",
        "test_an_old_results_file_naming_the_bundled_folder_still_replays",
        "test_forty_slow_lets_share_the_load_s_budget",
        "test_games_csv_quotes_every_text_cell_a_spreadsheet_would_run",
        "test_out_refuses_to_replace_results_without_force", "test_results_of_a_bundled_game_replay_from_any_folder",
        "test_resume_continues_the_same_run_and_may_add_games", "test_resume_refuses_another_run",
        "test_the_rules_a_results_file_carries_load_within_one_shared_budget", "test_usage_errors_exit_2",
        "test_workers_end_when_the_run_is_killed"},
    "test_validate_formats.py": {"test_a_valid_file_gives_an_empty_report_and_exit_code_0",
        "test_json_carries_every_problem_located_with_its_code_severity_and_hint"},
    "test_validate_play.py": {"test_warnings_fail_only_when_strict",
        "test_ci_formats_play_by_default_and_the_text_format_does_not",
        "test_the_bundled_games_fail_nowhere_in_play"},
    "test_value_nesting.py": {"test_a_value_deepened_from_inside_within_the_limit_is_saved_and_read_back"},
    "test_vector.py": ALL,
    "test_visible_expressions.py": {"test_the_compiled_backend_observes_alike_in_lockstep"},
}


def pytest_collection_modifyitems(config, items):
    for item in items:
        slow = SLOW.get(Path(str(item.fspath)).name)
        if slow is ALL or (slow and getattr(item, "originalname", item.name) in slow):
            item.add_marker(pytest.mark.slow)


def pytest_collection_finish(session):
    """What collecting imported and built (modules, items, bundled games) lives as long as the run: kept out of
    every later full collection of the garbage collector, which would otherwise walk it each time."""
    gc.collect()
    gc.freeze()


@pytest.fixture
def write(tmp_path):
    """write(text, name="game") -> the path of a rule file holding `text`, in the test's own folder."""
    def write_text(text: str, name: str = "game") -> str:
        path = tmp_path / (name if name.endswith(".yaml") else f"{name}.yaml")
        path.write_text(text, encoding="utf-8")
        return str(path)
    return write_text
