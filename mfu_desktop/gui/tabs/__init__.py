"""The three main tabs: calculator, profiler, prediction."""
