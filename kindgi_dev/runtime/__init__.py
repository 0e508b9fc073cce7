"""What executes: the pack and its service, agent turns, model adapters, replays."""
