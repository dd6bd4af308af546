from convo.cli.app import main

main()
