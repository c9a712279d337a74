// SPDX-License-Identifier: BSD-3-Clause
// rpma_log_*: thresholds, a user function, and the default function's
// stderr line.
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <regex>
#include <thread>
#include <vector>

#include "c_callers.h"
#include "fixture.hh"

namespace unit {

namespace {

struct Thresholds {
	rpma_log_level main;
	rpma_log_level aux;
};

Thresholds read_thresholds()
{
	Thresholds t{RPMA_LOG_DISABLED, RPMA_LOG_DISABLED};
	rpma_log_get_threshold(RPMA_LOG_THRESHOLD, &t.main);
	rpma_log_get_threshold(RPMA_LOG_THRESHOLD_AUX, &t.aux);
	return t;
}

// Taken before any test (or the fixture) changes them.
const Thresholds initial = read_thresholds();

// Something that logs: decoding a peer configuration logs at INFO.
void log_info_message()
{
	const uint8_t desc = 1;
	rpma_peer_cfg *cfg = nullptr;
	CPPUNIT_ASSERT_EQUAL(0, rpma_peer_cfg_from_descriptor(&desc, 1, &cfg));
	CPPUNIT_ASSERT_EQUAL(0, rpma_peer_cfg_delete(&cfg));
}

// What the library writes to stderr while `body` runs.
template <typename Body> std::string stderr_of(Body body)
{
	std::fflush(stderr);
	FILE *capture = std::tmpfile();
	CPPUNIT_ASSERT(capture);
	const int saved = dup(STDERR_FILENO);
	dup2(fileno(capture), STDERR_FILENO);
	body();
	std::fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	std::rewind(capture);
	std::string text;
	char chunk[512];
	size_t n;
	while ((n = std::fread(chunk, 1, sizeof(chunk), capture)) > 0)
		text.append(chunk, n);
	std::fclose(capture);
	return text;
}

std::atomic<int> counted_messages;

void count_message(rpma_log_level, const char *, int, const char *, const char *, ...)
{
	counted_messages++;
}

} // namespace

class LogTest : public Fixture {
	CPPUNIT_TEST_SUITE(LogTest);
	CPPUNIT_TEST(release_defaults);
	CPPUNIT_TEST(set_threshold_rejects_bad_values);
	CPPUNIT_TEST(get_threshold_rejects_bad_values);
	CPPUNIT_TEST(thresholds_round_trip);
	CPPUNIT_TEST(user_function_gets_messages);
	CPPUNIT_TEST(logging_from_threads);
	CPPUNIT_TEST(main_threshold_gates_user_function);
	CPPUNIT_TEST(aux_threshold_does_not_gate_user_function);
	CPPUNIT_TEST(set_function_never_fails);
	CPPUNIT_TEST(default_function_writes_stderr_up_to_aux);
	CPPUNIT_TEST(default_function_silent_on_stderr_above_aux);
	CPPUNIT_TEST_SUITE_END();

public:
	void tearDown() override
	{
		Fixture::tearDown();
		rpma_log_set_threshold(RPMA_LOG_THRESHOLD, initial.main);
		rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, initial.aux);
	}

	void release_defaults()
	{
		CPPUNIT_ASSERT_EQUAL(RPMA_LOG_LEVEL_WARNING, initial.main);
		CPPUNIT_ASSERT_EQUAL(RPMA_LOG_DISABLED, initial.aux);
	}

	void set_threshold_rejects_bad_values()
	{
		for (int threshold : {-1, int{RPMA_LOG_THRESHOLD_MAX}, 3})
			CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
					     c_log_set_threshold(threshold, RPMA_LOG_LEVEL_INFO));
		for (int level : {-2, 6, 100})
			CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
					     c_log_set_threshold(RPMA_LOG_THRESHOLD, level));
	}

	void get_threshold_rejects_bad_values()
	{
		rpma_log_level level = RPMA_LOG_LEVEL_FATAL;
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_log_get_threshold(RPMA_LOG_THRESHOLD_MAX, &level));
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL, c_log_get_threshold(-1, &level));
		CPPUNIT_ASSERT_EQUAL(RPMA_LOG_LEVEL_FATAL, level);
		CPPUNIT_ASSERT_EQUAL(RPMA_E_INVAL,
				     rpma_log_get_threshold(RPMA_LOG_THRESHOLD, nullptr));
	}

	void thresholds_round_trip()
	{
		for (rpma_log_threshold threshold : {RPMA_LOG_THRESHOLD, RPMA_LOG_THRESHOLD_AUX}) {
			for (int l = RPMA_LOG_DISABLED; l <= RPMA_LOG_LEVEL_DEBUG; ++l) {
				const auto level = static_cast<rpma_log_level>(l);
				CPPUNIT_ASSERT_EQUAL(0, rpma_log_set_threshold(threshold, level));
				rpma_log_level got = static_cast<rpma_log_level>(-5);
				CPPUNIT_ASSERT_EQUAL(0, rpma_log_get_threshold(threshold, &got));
				CPPUNIT_ASSERT_EQUAL(level, got);
			}
		}
	}

	void user_function_gets_messages()
	{
		rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_INFO);
		log_info_message();
		CPPUNIT_ASSERT_EQUAL(size_t{1}, LogCapture::records().size());
		const LogRecord &record = LogCapture::records().back();
		CPPUNIT_ASSERT_EQUAL(RPMA_LOG_LEVEL_INFO, record.level);
		CPPUNIT_ASSERT(!record.file.empty());
		CPPUNIT_ASSERT(record.line > 0);
		CPPUNIT_ASSERT(!record.function.empty());
		CPPUNIT_ASSERT(record.message.find("supported") != std::string::npos);
		// upstream hands the format over with the newline appended
		CPPUNIT_ASSERT_EQUAL('\n', record.message.back());
	}

	// docs/thread-safety.md: messages from several threads reach the
	// function while another thread changes and reads the thresholds.
	void logging_from_threads()
	{
		counted_messages = 0;
		rpma_log_set_function(count_message);
		rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_INFO);
		std::atomic<bool> done{false};
		std::thread changer([&done] {
			rpma_log_level level;
			while (!done) {
				rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX,
						       RPMA_LOG_LEVEL_ERROR);
				rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_DISABLED);
				rpma_log_get_threshold(RPMA_LOG_THRESHOLD, &level);
			}
		});
		std::vector<std::thread> loggers;
		for (int t = 0; t < 4; t++)
			loggers.emplace_back([] {
				for (int i = 0; i < 200; i++)
					log_info_message();
			});
		for (auto &t : loggers)
			t.join();
		done = true;
		changer.join();
		CPPUNIT_ASSERT_EQUAL(800, counted_messages.load());
	}

	void main_threshold_gates_user_function()
	{
		rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_NOTICE);
		log_info_message();
		CPPUNIT_ASSERT(LogCapture::records().empty());
		rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_DISABLED);
		log_info_message();
		CPPUNIT_ASSERT(LogCapture::records().empty());
		rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_INFO);
		log_info_message();
		CPPUNIT_ASSERT_EQUAL(size_t{1}, LogCapture::records().size());
	}

	void aux_threshold_does_not_gate_user_function()
	{
		rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_DEBUG);
		rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_DISABLED);
		log_info_message();
		CPPUNIT_ASSERT_EQUAL(size_t{1}, LogCapture::records().size());
	}

	void set_function_never_fails()
	{
		CPPUNIT_ASSERT_EQUAL(0, rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION));
		CPPUNIT_ASSERT_EQUAL(0, rpma_log_set_function(LogCapture::capture));
		// the default function no longer receives what the user one does
		rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_INFO);
		rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_LEVEL_DEBUG);
		CPPUNIT_ASSERT_EQUAL(std::string(), stderr_of(log_info_message));
		CPPUNIT_ASSERT_EQUAL(size_t{1}, LogCapture::records().size());
	}

	void default_function_writes_stderr_up_to_aux()
	{
		CPPUNIT_ASSERT_EQUAL(0, rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION));
		rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_INFO);
		rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_LEVEL_INFO);
		const std::string line = stderr_of(log_info_message);
		// "<Mon DD HH:MM:SS.uuuuuu> [<tid>] *INFO*  <file>: <line>: <func>: <msg>\n"
		const std::regex format(
			R"(^[A-Z][a-z]{2} [ 0-9]\d \d\d:\d\d:\d\d\.\d{6} \[\d+\] \*INFO\*  )"
			R"([A-Za-z0-9_.]+\.(cc|hh|c|h): +\d+: \w+: .*supported\n$)");
		CPPUNIT_ASSERT_MESSAGE(line, std::regex_match(line, format));
		CPPUNIT_ASSERT(LogCapture::records().empty());
	}

	void default_function_silent_on_stderr_above_aux()
	{
		CPPUNIT_ASSERT_EQUAL(0, rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION));
		rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_INFO);
		rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_LEVEL_NOTICE);
		CPPUNIT_ASSERT_EQUAL(std::string(), stderr_of(log_info_message));
	}
};

CPPUNIT_TEST_SUITE_REGISTRATION(LogTest);

} // namespace unit
