// SPDX-License-Identifier: BSD-3-Clause
// The integration suite's runner: runs every registered test (or those
// whose name contains argv[1]) over the RDMA device at RPMA_TEST_IP and
// ends with an "N passed, N failed, N skipped" line. A test skips (with its
// reason) where the platform lacks what it needs (platform.hh). Started as
// "--peer-server ..." it is instead the peer process of the fault tests.

#include <chrono>
#include <cctype>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <unistd.h>

#include <cppunit/Exception.h>
#include <cppunit/Test.h>
#include <cppunit/TestFailure.h>
#include <cppunit/TestListener.h>
#include <cppunit/TestResult.h>
#include <cppunit/extensions/TestFactoryRegistry.h>

#include "env.hh"
#include "peer_server.hh"
#include "platform.hh"

namespace {

class Reporter : public CppUnit::TestListener {
public:
	void startTest(CppUnit::Test *test) override
	{
		failed_ = false;
		skip_reason_.clear();
		start_ = std::chrono::steady_clock::now();
		std::cout << "[ RUN  ] " << test->getName() << std::endl;
	}

	void addFailure(const CppUnit::TestFailure &failure) override
	{
		std::string what = failure.thrownException()->what();
		if (what.rfind(it::SKIP_PREFIX, 0) == 0) {
			skip_reason_ = what.substr(it::SKIP_PREFIX.size());
			// CppUnit ends what() with a line of details, empty here
			while (!skip_reason_.empty() &&
			       std::isspace((unsigned char)skip_reason_.back()))
				skip_reason_.pop_back();
			return;
		}
		failed_ = true;
		const CppUnit::SourceLine &where = failure.sourceLine();
		std::cout << "  " << (failure.isError() ? "error" : "failure");
		if (where.isValid())
			std::cout << " at " << where.fileName() << ":" << where.lineNumber();
		std::cout << ": " << failure.thrownException()->what() << std::endl;
	}

	void endTest(CppUnit::Test *test) override
	{
		auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
				  std::chrono::steady_clock::now() - start_)
				  .count();
		if (!failed_ && !skip_reason_.empty()) {
			skipped++;
			std::cout << "[ SKIP ] " << test->getName() << ": " << skip_reason_
				  << std::endl;
			return;
		}
		(failed_ ? failed : passed)++;
		std::cout << (failed_ ? "[ FAIL ] " : "[  OK  ] ") << test->getName() << " (" << ms
			  << " ms)" << std::endl;
	}

	int passed = 0;
	int failed = 0;
	int skipped = 0;

private:
	bool failed_ = false;
	std::string skip_reason_;
	std::chrono::steady_clock::time_point start_;
};

// runs the leaf tests under `test` whose names contain `filter`; those
// named Disruptive* (they take a link down) only when the filter says so
void run_matching(CppUnit::Test *test, const std::string &filter, CppUnit::TestResult &result)
{
	if (test->getChildTestCount() == 0) {
		const std::string &name = test->getName();
		const bool disruptive = name.find("Disruptive") != std::string::npos;
		if (name.find(filter) != std::string::npos &&
		    (!disruptive || filter.find("Disruptive") != std::string::npos))
			test->run(&result);
		return;
	}
	for (int i = 0; i < test->getChildTestCount(); i++)
		run_matching(test->getChildTestAt(i), filter, result);
}

} // namespace

int main(int argc, char *argv[])
{
	if (argc > 1 && std::strcmp(argv[1], "--peer-server") == 0)
		return it::peer_server_main(argc, argv);
	char exe[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	it::self_exe.assign(exe, len > 0 ? (size_t)len : 0);
	if (argc > 2) {
		std::cerr << "usage: " << argv[0] << " [<test-name-part>]" << std::endl;
		return 2;
	}
	if (*it::test_ip() == '\0') {
		// automake's code for a skipped test
		std::cout << "RPMA_TEST_IP is not set: skipping" << std::endl;
		return 77;
	}

	// the native operations are each test's own choice (pair.hh)
	unsetenv("RPMA_NATIVE_OPS");

	CppUnit::Test *all = CppUnit::TestFactoryRegistry::getRegistry().makeTest();
	CppUnit::TestResult result;
	Reporter reporter;
	result.addListener(&reporter);
	run_matching(all, argc > 1 ? argv[1] : "", result);
	delete all;

	std::cout << reporter.passed << " passed, " << reporter.failed << " failed, "
		  << reporter.skipped << " skipped" << std::endl;
	if (reporter.failed)
		return 1;
	if (reporter.passed)
		return 0;
	// nothing ran: automake's skip if the platform lacked it all
	return reporter.skipped ? 77 : 1;
}
