"""trailcheck: make tool-using AI agents trustworthy."""
