// SPDX-License-Identifier: BSD-3-Clause
// Runs the registered CppUnit suites (or the one test path given as the
// argument), prints each failure, then "N passed, N failed" in test cases.
#include <cppunit/BriefTestProgressListener.h>
#include <cppunit/CompilerOutputter.h>
#include <cppunit/TestFailure.h>
#include <cppunit/TestResult.h>
#include <cppunit/TestResultCollector.h>
#include <cppunit/TestRunner.h>
#include <cppunit/extensions/TestFactoryRegistry.h>

#include <iostream>
#include <set>

int main(int argc, char *argv[])
{
	CppUnit::TestResult controller;
	CppUnit::TestResultCollector collector;
	controller.addListener(&collector);
	CppUnit::BriefTestProgressListener progress;
	controller.addListener(&progress);

	CppUnit::TestRunner runner;
	runner.addTest(CppUnit::TestFactoryRegistry::getRegistry().makeTest());
	try {
		runner.run(controller, argc > 1 ? argv[1] : "");
	} catch (const std::invalid_argument &e) {
		std::cerr << "no test " << argv[1] << ": " << e.what() << "\n";
		return 2;
	}

	CppUnit::CompilerOutputter(&collector, std::cout).write();

	// a test failing in both its body and tearDown counts once
	std::set<const CppUnit::Test *> failed;
	for (const CppUnit::TestFailure *failure : collector.failures())
		failed.insert(failure->failedTest());
	const int run = collector.runTests();
	const int failures = static_cast<int>(failed.size());
	std::cout << run - failures << " passed, " << failures << " failed\n";
	return failures == 0 && run > 0 ? 0 : 1;
}
