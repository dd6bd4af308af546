"""Names that ``entities`` recognises as they are written: software, technologies,
programming and natural languages, organisations and places.

Each list is ``TYPES: names``; a name is found as spelt here (``Rust``, ``Go``-style
common words need their capital), or in any case when it is listed in a ``*_ANY_CASE``
list (names no English word shares: ``pytest``, ``nginx``). Entity types are single
words, as TypeAgent's schema asks. The lists are what a reader of technical and everyday
chat would name; a word that is more often something else (``Nice``, ``Reading``,
``Jordan``, ``Go``, ``R``) is left out.
"""

from __future__ import annotations


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Software, services and products: found in any case.
SOFTWARE_ANY_CASE = """
pytest git nginx kubernetes postgresql postgres sqlite mysql mariadb mongodb redis kafka
rabbitmq elasticsearch opensearch memcached clickhouse duckdb bigquery dynamodb
terraform ansible jenkins gitlab github bitbucket docker podman webpack babel eslint npm
pnpm pip pipx conda uv virtualenv django fastapi pydantic sqlalchemy numpy pandas scipy
matplotlib pytorch tensorflow keras jupyter huggingface langchain llamaindex openai
chatgpt anthropic vscode neovim vim emacs tmux zsh bash powershell systemd grafana
prometheus datadog kibana splunk heroku vercel netlify cloudflare firebase supabase
macos linux ubuntu debian fedora centos archlinux freebsd android ios iphone ipad
whatsapp mattermost mastodon wikipedia youtube reddit twitter instagram linkedin
facebook gmail thunderbird mutt maildir dropbox onedrive confluence jira trello asana
figma photoshop powerpoint firefox selenium playwright cypress graphql grpc protobuf
websocket oauth openid jwt ffmpeg imagemagick pandoc markdown yaml toml json csv html
css xml pdf vtt srt svg png jpeg wasm webassembly llvm gcc clang cmake gradle maven
rustc nodejs deno typescript javascript golang kotlin scala haskell erlang elixir
clojure ocaml fortran cobol perl php matlab pyenv dnf pacman flatpak systemctl
cron regex unicode utf-8 ascii ssh tls ssl dns tcp udp ipv6 smtp imap ldap saml oidc
kerberos vpn wireguard openvpn tailscale ngrok wget httpx openssl gpg pgp yake spacy
nltk gpt-4 gpt-4o gpt-3.5 stable-diffusion typeagent
orjson ujson msgspec typer pyo3 maturin cython numba dask pyspark
scikit-learn sklearn xgboost lightgbm statsmodels seaborn plotly streamlit gradio vllm
llama.cpp postgis timescaledb pgvector pgbouncer pg_partman pg_upgrade pg_dump
pg_restore vacuumdb psql psycopg psycopg2 asyncpg jdbc odbc debezium flyway liquibase
alembic litestream libsql sqlite-utils cockroachdb scylladb neo4j influxdb couchdb
zlib bcrypt argon2 openssh zeromq mqtt mosquitto zigbee z-wave zha tokio
tokio-uring tokio-console io_uring axum actix serde sqlx rustup clippy
wasmtime inotify nixpkgs nixos-rebuild home-manager hyprland wayland kde
apt-get winget chocolatey wsl wsl2 proxmox truenas openwrt pfsense
jellyfin plex kubectl argocd istio linkerd traefik haproxy pulumi
cloudformation fargate redshift sagemaker opentelemetry jaeger pyspy py-spy
gunicorn uvicorn starlette jinja jinja2 mypy ruff flake8 pylint tox nox
setuptools pyproject.toml esbuild vitest storybook tailwind
tailwindcss jquery redux nestjs prisma sequelize typeorm node-sass postcss
airbyte fivetran dbt metabase airflow dagster
parquet avro iceberg protobuf onnx safetensors ynab quickbooks xero netsuite
hubspot zendesk intercom freshdesk salesforce servicenow pagerduty opsgenie
opensearch-java ubuntu-latest ubuntu-22.04 ubuntu-24.04 uuidv4 uuidv7 pg_uuidv7
"""

# Software that shares its name with an English word: found only as spelt.
SOFTWARE_AS_SPELT = """
Vite Flask Discord Telegram Sentry Poetry Yarn Snowflake Cassandra Python Rust Java
Swift Ruby Go Lua Dart Zig Nim Elm Haskell Slack Zoom Teams Notion Spark Hadoop Airflow
Flink Docker Ansible Vagrant Git React Vue Angular Svelte Next.js Node.js Vue.js Nuxt
Gatsby Rails Laravel Electron Qt GTK Unreal Godot Blender Excel Outlook Windows Azure
AWS GCP S3 EC2 CloudFront Route53 RDS EKS ECS IAM Kinesis SQS SNS Cloud_Run Firestore
BigQuery Colab Kaggle Postman Miro Calendly Zapier Stripe PayPal Shopify WordPress
Drupal Substack Mailchimp Twilio SendGrid Okta Auth0 Keycloak Bitwarden 1Password
LastPass KeePass Obsidian Logseq Evernote OneNote Jupyter SVN Subversion Perforce Bazel
Nix NixOS Kali Gentoo MacBook iMac Kindle Alexa Siri Copilot Gemini Claude Llama Mistral
Ollama LM_Studio SQL NoSQL REST JSON YAML CSV HTML CSS XML PDF VTT SRT SBV MIME RSS
OAuth JWT SSO MFA TOTP WebAuthn CORS CSRF XSS C++ C# F# .NET ASP.NET Kotlin TypeScript
JavaScript PHP Perl Bash PowerShell MATLAB COBOL Fortran Lisp Prolog WebGL OpenGL Vulkan
DirectX CUDA ROCm NVMe Bluetooth Wi-Fi LTE 5G Ethernet Raspberry_Pi Arduino ESP32 Linux
Unix POSIX Android iOS macOS iPadOS watchOS tvOS visionOS ChromeOS Chromium Vivaldi
Chrome Google_Chrome Safari Brave Node Deno GitHub_Actions GitHub_Copilot
GitLab_CI CircleCI Travis_CI Buildkite Dependabot Renovate Docker_Compose
Docker_Desktop Docker_Hub Home_Assistant Node-RED Ruby_on_Rails Spring_Boot Django
Google_Meet Google_Drive Google_Docs Google_Sheets Google_Calendar Google_Maps
Google_Cloud Google_Workspace Microsoft_Teams Microsoft_365 Office_365 SharePoint
Azure_AD Entra_ID Active_Directory Visual_Studio VS_Code Visual_Studio_Code IntelliJ
PyCharm Xcode Android_Studio Sublime_Text Apache_Flink Apache_Kafka
Apache_Spark Apache_Airflow Apache_Arrow Delta_Lake Power_BI AWS_CLI AWS_Lambda
Cloud_Functions Cloud_SQL Pub/Sub GKE AKS Cosmos_DB Content_Security_Policy
CSP Zigbee Z-Wave Signal WeChat Viber Skype Webex ClickUp
Basecamp iCloud FaceTime iMessage Apple_Pay Google_Pay Venmo Zelle Cash_App Bizum
Swish Nix Sass Parquet Terraform_Cloud Helm
Prometheus Grafana Kibana Hibernate JUnit Click Celery Envoy Caddy Looker Superset
Tableau GNOME Homebrew Mocha Rollup Jest Cargo NATS Polars Prefect Tokio Typer
"""

# Technologies (standards, formats, protocols): a type of their own.
TECHNOLOGY = _words(
    """jwt jwts oauth openid saml oidc sso mfa totp webauthn cors csrf xss rest graphql
    grpc protobuf websocket json yaml toml xml csv html css markdown pdf vtt srt sbv svg
    png jpeg mime rss atom unicode utf-8 ascii ssh tls ssl https dns tcp udp ipv6 smtp
    imap ldap kerberos vpn regex wasm webassembly sql nosql webgl opengl vulkan cuda
    rocm bluetooth wi-fi lte 5g ethernet nvme posix"""
)

LANGUAGE_PROGRAMMING = _words(
    """python rust java swift ruby golang lua dart zig nim elm crystal haskell typescript
    javascript golang kotlin scala erlang elixir clojure ocaml fortran cobol perl php
    matlab bash powershell c++ c# f# lisp scheme prolog assembly sql"""
)

# Natural languages (and the people's adjective: "in German" is the language).
NATURAL_LANGUAGES = """
English French German Spanish Italian Portuguese Dutch Swedish Norwegian Danish Finnish
Icelandic Polish Czech Slovak Hungarian Romanian Bulgarian Greek Turkish Russian
Ukrainian Serbian Croatian Slovenian Lithuanian Latvian Estonian Irish Welsh Catalan
Basque Galician Arabic Hebrew Persian Farsi Urdu Hindi Bengali Punjabi Tamil Telugu
Marathi Gujarati Kannada Malayalam Sinhala Nepali Thai Vietnamese Indonesian Malay
Tagalog Filipino Chinese Mandarin Cantonese Japanese Korean Mongolian Swahili Amharic
Yoruba Zulu Xhosa Afrikaans Esperanto Latin
"""

ORGANISATIONS = """
Google Microsoft Apple Amazon Meta Facebook OpenAI Anthropic Mozilla IBM Intel AMD
Nvidia NVIDIA Oracle Netflix Uber Lyft Airbnb Stripe Shopify Salesforce Adobe Cisco
Samsung Sony Tesla SpaceX Twitter Reddit Wikipedia Wikimedia Apache Canonical Cloudflare
DigitalOcean Hetzner OVH Akamai Fastly Atlassian JetBrains GitHub GitLab Spotify Dropbox
Yahoo Baidu Alibaba Tencent Huawei Xiaomi ByteDance TikTok Nokia Ericsson Siemens Bosch
SAP Philips Vodafone Verizon Comcast AT&T Deutsche_Telekom Accenture Deloitte KPMG PwC
McKinsey Goldman_Sachs JPMorgan Morgan_Stanley Visa Mastercard PayPal Coinbase Binance
DeepMind Hugging_Face Mistral_AI Cohere Databricks Snowflake MongoDB Elastic HashiCorp
Vercel Netlify Heroku Red_Hat SUSE Linux_Foundation Python_Software_Foundation
Rust_Foundation W3C IETF ISO IEEE ACM NASA ESA CERN NIH FDA WHO UNESCO UNICEF NATO UN EU
BBC CNN Reuters Bloomberg Stanford Harvard Berkeley Caltech Princeton Yale
ETH EPFL NHS Gartner Forrester Zendesk HubSpot Garmin IKEA Lidl Aldi Tesco Carrefour
Mercadona Sainsbury's Waitrose John_Lewis Marks_&_Spencer Costco Walmart Decathlon
MediaMarkt Zalando Mercado_Libre Rakuten Lufthansa Air_Canada Korean_Air
British_Airways Air_France KLM Ryanair easyJet Iberia Vueling TAP_Air_Portugal Emirates
Qatar_Airways Turkish_Airlines Delta_Air_Lines United_Airlines American_Airlines
Southwest_Airlines Finnair Eurowings Wizz_Air Deutsche_Bahn SNCF Renfe Trenitalia
Eurostar ÖBB SBB Amtrak VIA_Rail JR_East JR_West Barclays HSBC Lloyds NatWest Santander
BBVA ING Deutsche_Bank Commerzbank UBS BNP_Paribas Société_Générale Intesa_Sanpaolo
UniCredit Halifax Nationwide Chase Wells_Fargo Bank_of_America Citibank Schwab Fidelity
Vanguard Interactive_Brokers Robinhood Wealthfront Revolut Monzo N26 Wise Adyen Klarna
Paystack Flutterwave Booking.com Expedia Skyscanner Coursera Udemy edX O'Reilly Packt
Manning MIT_Press Springer Elsevier Wiley Pearson Pearson_VUE Nature Grant_Thornton EY
Ernst_&_Young Capgemini Infosys Wipro Scaleway Linode Backblaze Twitch Valve Nintendo
Ubisoft Bosch Sony Philips Panasonic Lenovo Dell HP Asus Acer Logitech Aqara Xetra
Nasdaq NYSE Euronext Gazprom Shell BP TotalEnergies Maersk DHL FedEx UPS
"""

PLACES = """
Afghanistan Albania Algeria Andorra Angola Argentina Armenia Australia Austria
Azerbaijan Bahamas Bahrain Bangladesh Barbados Belarus Belgium Belize Benin Bhutan
Bolivia Bosnia Botswana Brazil Brunei Bulgaria Burundi Cambodia Cameroon Canada Chile
China Colombia Congo Costa_Rica Croatia Cuba Cyprus Czechia Denmark Djibouti Dominica
Ecuador Egypt Eritrea Estonia Eswatini Ethiopia Fiji Finland France Gabon Gambia Germany
Ghana Greece Grenada Guatemala Guinea Guyana Haiti Honduras Hungary Iceland India
Indonesia Iran Iraq Ireland Israel Italy Jamaica Japan Kazakhstan Kenya Kiribati Kosovo
Kuwait Kyrgyzstan Laos Latvia Lebanon Lesotho Liberia Libya Liechtenstein Lithuania
Luxembourg Madagascar Malawi Malaysia Maldives Mali Malta Mauritania Mauritius Mexico
Moldova Monaco Mongolia Montenegro Morocco Mozambique Myanmar Namibia Nauru Nepal
Netherlands New_Zealand Nicaragua Niger Nigeria North_Korea South_Korea Norway Oman
Pakistan Palau Palestine Panama Paraguay Peru Philippines Poland Portugal Qatar Romania
Russia Rwanda Samoa San_Marino Saudi_Arabia Senegal Serbia Seychelles Singapore Slovakia
Slovenia Somalia South_Africa Spain Sri_Lanka Sudan Suriname Sweden Switzerland Syria
Taiwan Tajikistan Tanzania Thailand Togo Tonga Tunisia Turkey Turkmenistan Tuvalu Uganda
Ukraine United_Arab_Emirates United_Kingdom United_States Uruguay Uzbekistan Vanuatu
Venezuela Vietnam Yemen Zambia Zimbabwe USA UK England Scotland Wales Northern_Ireland
Europe Asia Africa Antarctica Oceania North_America South_America Latin_America
Middle_East Scandinavia Balkans Caribbean Siberia Patagonia Silicon_Valley Bay_Area
Alabama Alaska Arizona Arkansas California Colorado Connecticut Delaware Florida Hawaii
Idaho Illinois Indiana Iowa Kansas Kentucky Louisiana Maine Maryland Massachusetts
Michigan Minnesota Mississippi Missouri Montana Nebraska Nevada New_Hampshire New_Jersey
New_Mexico New_York North_Carolina North_Dakota Ohio Oklahoma Oregon Pennsylvania
Rhode_Island South_Carolina South_Dakota Tennessee Texas Utah Vermont Virginia
Washington West_Virginia Wisconsin Wyoming Ontario Quebec British_Columbia Alberta
Bavaria Catalonia Andalusia Tuscany Lombardy Provence Brittany Normandy Flanders
Wallonia Lapland Crete Sicily Sardinia Corsica Bali Java Sumatra Borneo Tasmania
Queensland Kyoto Osaka Tokyo Yokohama Seoul Busan Beijing Shanghai Shenzhen Guangzhou
Hong_Kong Macau Taipei Singapore Bangkok Hanoi Manila Jakarta Kuala_Lumpur Mumbai Delhi
New_Delhi Bangalore Bengaluru Chennai Kolkata Hyderabad Pune Karachi Lahore Dhaka
Kathmandu Colombo Dubai Abu_Dhabi Doha Riyadh Tehran Baghdad Istanbul Ankara Jerusalem
Tel_Aviv Beirut Amman Cairo Alexandria Casablanca Marrakesh Tunis Algiers Lagos Accra
Nairobi Addis_Ababa Kampala Kigali Johannesburg Cape_Town Durban London Manchester
Birmingham Liverpool Leeds Glasgow Edinburgh Bristol Oxford Cambridge Dublin Belfast
Cardiff Paris Lyon Marseille Toulouse Bordeaux Lille Strasbourg Berlin Hamburg Munich
Cologne Frankfurt Stuttgart Dresden Leipzig Vienna Zurich Geneva Basel Bern Lausanne
Amsterdam Rotterdam Utrecht Brussels Antwerp Ghent Luxembourg Copenhagen Stockholm
Gothenburg Oslo Bergen Helsinki Reykjavik Madrid Barcelona Valencia Seville Bilbao
Malaga Lisbon Porto Rome Milan Naples Turin Florence Venice Bologna Athens Warsaw Krakow
Prague Budapest Bratislava Bucharest Sofia Belgrade Zagreb Ljubljana Sarajevo Tirana
Riga Tallinn Vilnius Kyiv Kiev Minsk Moscow Tbilisi Yerevan Baku New_York_City NYC
Brooklyn Manhattan Boston Chicago San_Francisco Los_Angeles Seattle Portland San_Diego
San_Jose Sacramento Las_Vegas Phoenix Denver Dallas Houston Austin San_Antonio Atlanta
Miami Orlando Tampa Philadelphia Pittsburgh Baltimore Detroit Cleveland Minneapolis
Milwaukee Nashville Memphis New_Orleans St._Louis Kansas_City Salt_Lake_City Toronto
Montreal Vancouver Ottawa Calgary Mexico_City Havana Bogota Lima Santiago Buenos_Aires
Montevideo Sao_Paulo São_Paulo Rio_de_Janeiro Brasilia Caracas Quito La_Paz Sydney
Melbourne Brisbane Perth Adelaide Auckland Wellington Eiffel_Tower Big_Ben
Golden_Gate_Bridge Central_Park Times_Square Statue_of_Liberty Colosseum Louvre
Acropolis Great_Wall Taj_Mahal Sevilla Granada Córdoba Cordoba Palma Ibiza Nantes
Rennes Montpellier Oakland Palo_Alto Mountain_View Cupertino Redmond Menlo_Park UAE US
EMEA APAC LATAM DACH Benelux Nordics Navarre Basque_Country Andalucía Galicia Asturias
Cantabria Algarve Madeira Azores Gastown Alfama Chiado Kreuzberg Neukölln Shoreditch
Camden Soho Montmartre Marais Trastevere Da_Nang Hoi_An Ho_Chi_Minh_City Saigon Phuket
Chiang_Mai Kuala_Lumpur Penang Hokkaido Okinawa Nara Hiroshima Sapporo Fukuoka
Camino_de_Santiago Wien München Köln Zürich Genève Lisboa Roma Milano Napoli Firenze
Venezia Praha Warszawa Kraków Göteborg København Bruxelles Den_Haag The_Hague Esbjerg
Aarhus Malmö Uppsala Tampere Turku Trondheim Stavanger
"""

# Heads that name what a capitalised phrase is ("Casa Hotel", "Auth Team").
PLACE_HEADS = _words(
    """Street St Road Rd Avenue Ave Square Park Bridge Tower Station Airport Lake River
    Mountain Mountains Island Islands Beach Bay Valley Hill Hills Castle Palace
    Cathedral Museum Gallery Stadium Arena Hall Plaza Harbour Harbor Port Center Centre
    Campus Building Room"""
)
ORGANISATION_HEADS = _words(
    """Inc Inc. Ltd Ltd. LLC GmbH AG SA Corp Corp. Corporation Company Co. Foundation
    University College Institute School Academy Labs Lab Group Team Bank Hotel Hostel
    Restaurant Cafe Café Bar Agency Association Society Council Committee Department
    Ministry Office Party Club Union Partners Capital Ventures Studio Studios Systems
    Technologies Software Solutions Services Media Press Times Post News Network"""
)

# Months, found as spelt ("May" is left out: more often the verb).
MONTHS = """
January February March April June July August September October November December
"""

# Conferences, shows and holidays that are named as they are written.
EVENTS = """
FOSDEM NeurIPS KubeCon KubeCon_Europe PyCon PyCon_US EuroPython ICML ICLR CVPR EMNLP
SIGGRAPH WWDC Google_I/O re:Invent CES MWC Web_Summit Strange_Loop RustConf GopherCon
JSConf DEF_CON Black_Hat SXSW Davos Advent_of_Code Hacktoberfest Oktoberfest Christmas
Easter Thanksgiving Ramadan Eid Diwali Hanukkah Passover Lunar_New_Year Chinese_New_Year
New_Year's_Eve Black_Friday Cyber_Monday Halloween Semana_Santa Navidad Nochebuena
Weihnachten Ostern Pentecost Midsummer Carnival Mardi_Gras Golden_Week Bastille_Day
Super_Bowl World_Cup Olympics Wimbledon Tour_de_France
"""
