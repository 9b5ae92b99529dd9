// The demo dataset's fixed parts: publications, people and headline templates. Places are invented so that no
// demo "fact" can be mistaken for a claim about a real town. Domains sit under the reserved .example TLD.
export type DemoTopic = 'health' | 'climate' | 'economy' | 'science' | 'politics' | 'technology' | 'education' | 'food';

export interface DemoPerson {
  username: string;
  name: string;
  summary: string;
  topics: DemoTopic[];
}

/** A hand-written page at a fixed URL, for documentation to point at (the README's example lookup). */
export interface FeaturedPage {
  path: string;
  title: string;
  topic: DemoTopic;
  authors: string[];
  registeredAt: string;
}

export interface DemoPublisher {
  slug: string;
  name: string;
  /** The verified domain; pages may live on it or a subdomain (`host`). */
  domain: string;
  host: string;
  owner: DemoPerson;
  sections: DemoTopic[];
  /** How many pages it has, the featured ones included. */
  pages: number;
  featured?: FeaturedPage[];
  /** The path of an article, as this publication's CMS builds it. */
  path: (a: { section: DemoTopic; slug: string; date: string }) => string;
}

export const DEMO_PASSWORD = 'demo-password-123';
export const DEMO_EMAIL_DOMAIN = 'demo.credence.example';
export const demoEmail = (username: string) => `${username}@${DEMO_EMAIL_DOMAIN}`;

const ymd = (date: string) => date.slice(0, 10).split('-') as [string, string, string];

export const DEMO_PUBLISHERS: DemoPublisher[] = [
  {
    slug: 'the-daily-ledger',
    name: 'The Daily Ledger',
    domain: 'dailyledger.example',
    host: 'dailyledger.example',
    owner: {
      username: 'ledger-editor',
      name: 'Ruth Calloway',
      summary: 'Managing editor of The Daily Ledger.',
      topics: ['politics', 'economy'],
    },
    sections: ['politics', 'economy', 'health', 'climate', 'technology'],
    pages: 90,
    featured: [
      {
        // The README's example lookup: change both together.
        path: '/health/measles-cases-rise-in-three-states',
        title: 'Measles cases rise in three states as vaccination rates slip',
        topic: 'health',
        authors: ['amara-okafor', 'priya-raman'],
        registeredAt: '2026-11-12T08:30:00.000Z',
      },
    ],
    path: ({ section, slug, date }) => `/${section}/${ymd(date)[0]}/${ymd(date)[1]}/${slug}`,
  },
  {
    slug: 'northwind-health',
    name: 'Northwind Health',
    domain: 'northwindhealth.example',
    host: 'northwindhealth.example',
    owner: {
      username: 'northwind-editor',
      name: 'Imogen Hale',
      summary: 'Editor-in-chief of Northwind Health; former hospital physician.',
      topics: ['health'],
    },
    sections: ['health', 'science', 'food'],
    pages: 70,
    path: ({ slug }) => `/articles/${slug}`,
  },
  {
    slug: 'harbor-and-field',
    name: 'Harbor & Field',
    domain: 'harborandfield.example',
    host: 'harborandfield.example',
    owner: {
      username: 'harbor-editor',
      name: 'Callum Reid',
      summary: 'Founding editor of Harbor & Field, on land, sea and weather.',
      topics: ['climate', 'food'],
    },
    sections: ['climate', 'food', 'science'],
    pages: 50,
    path: ({ section, slug }) => `/stories/${section}/${slug}`,
  },
  {
    slug: 'civic-review',
    name: 'The Civic Review',
    domain: 'civicreview.example',
    host: 'civicreview.example',
    owner: {
      username: 'civic-editor',
      name: 'Nadia Brennan',
      summary: 'Editor of The Civic Review, covering councils, parliament and schools.',
      topics: ['politics', 'education'],
    },
    sections: ['politics', 'economy', 'education'],
    pages: 55,
    path: ({ slug, date }) => `/${ymd(date).join('/')}/${slug}`,
  },
  {
    slug: 'circuit-weekly',
    name: 'Circuit Weekly',
    domain: 'circuitweekly.example',
    // A subdomain of the verified domain: covered by it (SPEC §1).
    host: 'www.circuitweekly.example',
    owner: {
      username: 'circuit-editor',
      name: 'Theo Marsh',
      summary: 'Editor of Circuit Weekly, the technology desk that reads the fine print.',
      topics: ['technology'],
    },
    sections: ['technology', 'science', 'economy'],
    pages: 55,
    path: ({ section, slug }) => `/${section}/${slug}`,
  },
  {
    slug: 'meridian-science',
    name: 'Meridian Science',
    domain: 'meridianscience.example',
    host: 'meridianscience.example',
    owner: {
      username: 'meridian-editor',
      name: 'Esther Kaplan',
      summary: 'Editor of Meridian Science; trained as a marine biologist.',
      topics: ['science', 'climate'],
    },
    sections: ['science', 'health', 'climate'],
    pages: 40,
    path: ({ slug, date }) => `/news/${ymd(date)[0]}/${slug}`,
  },
];

export const DEMO_CONTRIBUTORS: DemoPerson[] = [
  { username: 'amara-okafor', name: 'Amara Okafor', topics: ['health', 'science'], summary: 'Epidemiologist writing on infectious disease and vaccines.' },
  { username: 'daniel-reyes', name: 'Daniel Reyes', topics: ['climate', 'science'], summary: 'Climate reporter covering floods, heat and adaptation.' },
  { username: 'meilin-tan', name: 'Mei Lin Tan', topics: ['economy', 'politics'], summary: 'Economics correspondent: prices, wages and public budgets.' },
  { username: 'jonas-weber', name: 'Jonas Weber', topics: ['technology'], summary: 'Security researcher turned technology writer.' },
  { username: 'priya-raman', name: 'Priya Raman', topics: ['health'], summary: 'General practitioner who checks medical claims for a living.' },
  { username: 'tomas-ferreira', name: 'Tomás Ferreira', topics: ['politics', 'education'], summary: 'Political reporter; fifteen years in the press gallery.' },
  { username: 'hannah-lindqvist', name: 'Hannah Lindqvist', topics: ['climate', 'food'], summary: 'Agricultural scientist writing about farming in a warming world.' },
  { username: 'kwame-mensah', name: 'Kwame Mensah', topics: ['economy', 'technology'], summary: 'Covers trade, ports and the industries built on them.' },
  { username: 'sofia-marchetti', name: 'Sofia Marchetti', topics: ['science'], summary: 'Astrophysicist and science writer.' },
  { username: 'elijah-brooks', name: 'Elijah Brooks', topics: ['politics'], summary: 'Fact-checker specialising in statistics quoted by politicians.' },
  { username: 'aisha-rahman', name: 'Aisha Rahman', topics: ['health', 'food'], summary: 'Registered dietitian; reviews nutrition stories.' },
  { username: 'lukas-novak', name: 'Lukas Novak', topics: ['science', 'technology'], summary: 'Physicist covering computing and materials research.' },
  { username: 'grace-whitfield', name: 'Grace Whitfield', topics: ['education'], summary: 'Former head teacher reporting on schools and exams.' },
  { username: 'mateo-alvarez', name: 'Mateo Alvarez', topics: ['climate', 'economy'], summary: 'Energy analyst: grids, prices and the cost of the transition.' },
  { username: 'noor-haddad', name: 'Noor Haddad', topics: ['health', 'science'], summary: 'Pharmacologist explaining new medicines and their trials.' },
  { username: 'oliver-grant', name: 'Oliver Grant', topics: ['economy'], summary: 'Housing and personal-finance correspondent.' },
  { username: 'yuki-tanaka', name: 'Yuki Tanaka', topics: ['technology', 'science'], summary: 'Writes about semiconductors, batteries and the supply chains behind them.' },
  { username: 'fatima-diallo', name: 'Fatima Diallo', topics: ['food', 'health'], summary: 'Food-safety inspector turned journalist.' },
  { username: 'samuel-adeyemi', name: 'Samuel Adeyemi', topics: ['politics', 'economy'], summary: 'Covers public spending and the people who decide it.' },
  { username: 'clara-jensen', name: 'Clara Jensen', topics: ['climate'], summary: 'Meteorologist; explains weather records and what they mean.' },
  { username: 'rafael-costa', name: 'Rafael Costa', topics: ['technology', 'politics'], summary: 'Digital-rights reporter: privacy, platforms and elections.' },
  { username: 'ingrid-halvorsen', name: 'Ingrid Halvorsen', topics: ['science', 'climate'], summary: 'Glaciologist writing from the field.' },
  { username: 'marcus-bell', name: 'Marcus Bell', topics: ['health'], summary: 'Health-service reporter: waiting lists, staffing and funding.' },
  { username: 'leila-farahani', name: 'Leila Farahani', topics: ['education', 'politics'], summary: 'Education policy researcher.' },
  { username: 'nikolai-petrov', name: 'Nikolai Petrov', topics: ['science'], summary: 'Geologist covering earthquakes and volcanoes.' },
  { username: 'zara-ahmed', name: 'Zara Ahmed', topics: ['food', 'climate'], summary: 'Fisheries and oceans correspondent.' },
  { username: 'ethan-cole', name: 'Ethan Cole', topics: ['technology'], summary: 'Consumer-technology tester; breaks gadgets so readers need not.' },
  { username: 'beatriz-santos', name: 'Beatriz Santos', topics: ['health', 'education'], summary: 'Paediatric nurse writing on child health and schools.' },
  { username: 'henry-osei', name: 'Henry Osei', topics: ['economy', 'food'], summary: 'Commodities reporter following crops from field to shelf.' },
  { username: 'chloe-dubois', name: 'Chloe Dubois', topics: ['politics'], summary: 'Local-government reporter; attends the council meetings so you do not have to.' },
  { username: 'arjun-mehta', name: 'Arjun Mehta', topics: ['technology', 'economy'], summary: 'Start-up and venture-capital correspondent.' },
  { username: 'elena-rossi', name: 'Elena Rossi', topics: ['climate', 'science'], summary: 'Ocean scientist studying sea-level rise.' },
  { username: 'patrick-doyle', name: 'Patrick Doyle', topics: ['education'], summary: 'Higher-education reporter: fees, funding and admissions.' },
  { username: 'sana-qureshi', name: 'Sana Qureshi', topics: ['health', 'science'], summary: 'Clinical researcher; reviews studies before they become headlines.' },
  { username: 'victor-lindgren', name: 'Victor Lindgren', topics: ['economy', 'politics'], summary: 'Former treasury economist; explains budgets line by line.' },
  { username: 'maya-goldberg', name: 'Maya Goldberg', topics: ['science', 'health'], summary: 'Neuroscientist writing about sleep, memory and the brain.' },
];

/** Slots a headline template may use; each is filled from its list. */
export const SLOTS: Record<string, readonly string[]> = {
  place: [
    'Port Alder', 'Eastvale', 'Kingsbridge', 'Marlow Bay', 'Westbrook', 'Ashford Vale', 'the Lakes district',
    'Riverside County', 'Northmoor', 'Calder Springs', 'Fenwick', 'Silverton', 'the Central Valley', 'Highcliff',
  ],
  n: ['3', '5', '7', '8', '10', '12', '15', '20'],
  big: ['120', '250', '400', '650', '800', '1,200'],
  pct: ['4', '6', '9', '12', '15', '18', '22', '30'],
  dec: ['2.1', '2.4', '2.8', '3.1', '3.6', '4.2'],
  season: ['summer', 'winter', 'spring', 'autumn'],
  year: ['2027', '2028', '2029', '2030', '2031'],
  ord: ['second', 'third', 'fourth', 'fifth'],
  age: ['40', '45', '50', '55'],
};

export const HEADLINES: Record<DemoTopic, readonly string[]> = {
  health: [
    'Measles cases climb in {place} as vaccination rates slip',
    'What a {n}-year study says about walking and heart health',
    'Hospital waiting lists in {place} reach a {n}-year high',
    "New guidance on antibiotics for children's ear infections, explained",
    'How {place} cut emergency wait times by {pct} percent',
    'Heat waves and hospital admissions: what the data show in {place}',
    'Is intermittent fasting better than counting calories? The evidence so far',
    "Flu season arrives early in {place}: what to know about this year's vaccine",
    'Loneliness and health: {n} findings from a decade of research',
    'Why nurse shortages in {place} are worst on night shifts',
    'A blood test for early cancer detection: promise and limits',
    'Sleep, screens and teenagers: separating evidence from alarm',
    'Drinking water in {place} meets lead limits after pipe replacement',
    'Mental health services in {place} add {n} crisis beds',
    'Understanding the new blood pressure targets',
    'Vitamin D supplements: who benefits, and who does not',
  ],
  climate: [
    '{place} records its hottest {season} since measurements began',
    'Sea walls or managed retreat? {place} weighs its options',
    'How much do heat pumps really save? A winter in {place}',
    'Wildfire smoke reached {place} {n} times this year',
    'Flood maps for {place} redrawn as rainfall intensifies',
    'The carbon cost of a long-haul flight, explained',
    'Coastal erosion claims {n} metres of shoreline near {place}',
    'What the latest emissions figures say about the {year} targets',
    'Drought restrictions lifted in {place} after a wet spring',
    'Why glaciers matter for farmers downstream',
    'Offshore wind farm near {place} begins supplying power',
    'Urban trees cool streets by several degrees, study finds',
    'Are electric buses ready for cold winters? {place} tests them',
    'Insurers retreat from flood-prone homes in {place}',
    'Snowpack above {place} is {pct} percent below normal',
  ],
  economy: [
    'Inflation eases to {dec} percent, but food prices keep rising',
    'Rents in {place} up {pct} percent in a year',
    'Why mortgage rates have not fallen as fast as the central rate',
    'Small businesses in {place} face higher energy bills this winter',
    'Minimum wage rise: who gains and what it costs',
    'Freight volumes in {place} reach their highest in {n} years',
    'What a four-day week trial in {place} found',
    'Household savings fall for the {ord} quarter in a row',
    'Youth unemployment in {place} drops below {pct} percent',
    'How tariffs on steel reach the price of a washing machine',
    'Pension reform explained: what changes for people under {age}',
    'Grocery prices: the {n} items that rose the most this year',
    'Factory closure in {place} puts {big} jobs at risk',
    'Are house prices in {place} finally cooling?',
    'The budget in numbers: spending, borrowing and the deficit',
  ],
  science: [
    'Astronomers spot a comet that will pass Earth in {year}',
    'Why a quiet volcano near {place} is being watched closely',
    'A new species of frog found in the forests above {place}',
    'What the newest space telescope images revealed this month',
    'Gene editing trial restores partial sight in {n} patients',
    'Bee populations in {place} recover after pesticide limits',
    'How scientists date ancient footprints',
    'A quantum computing claim, and why experts are cautious',
    'Researchers map the rivers of {place} for the first time',
    'Earthquake swarm near {place}: what seismologists know',
    'Fusion experiment sets a record, but power plants are decades away',
    'Why replication matters: a famous psychology result retested',
    'Microplastics found in rainwater collected in {place}',
    'The science of tides, explained with a bucket and a map',
    'An ancient settlement unearthed during roadworks near {place}',
  ],
  politics: [
    'Council in {place} approves a {big}-home development after long debate',
    'Fact check: claims about crime figures in {place}',
    'What the new election boundaries mean for {place}',
    'Turnout in {place} local elections was the lowest in {n} years',
    'How a bill becomes law, step by step',
    'Mayor of {place} sets out a transport plan for the next decade',
    'The coalition talks, explained in {n} questions',
    'Lobbying register: who met ministers last quarter',
    'Fact check: how much does the state spend on foreign aid?',
    'Voting by post: what changes at the next election',
    'Parliament debates a ban on second jobs for its members',
    '{place} votes on a new tram line: the arguments',
    'Who funds political parties? The latest filings',
    'Fact check: the claim that {pct} percent of councils face bankruptcy',
    'Local budget cuts in {place}: libraries, buses and parks',
  ],
  technology: [
    'How the new data protection rules affect small websites',
    'A security flaw in popular routers: what to do now',
    'Rural broadband around {place} still lags behind the cities',
    'Are AI text detectors reliable? We tested {n} of them',
    'The battery recycling plant coming to {place}',
    'Passwords are on the way out: what passkeys mean for you',
    'Ransomware attack disrupts hospital systems in {place}',
    'Electric car charging points in {place} double in a year',
    "Why your phone's battery health drops, and how to slow it",
    'Open-source software and the volunteers who maintain it',
    'Deepfake robocalls: how election officials are responding',
    'A chip factory near {place} promises {big} jobs',
    'What happens to your data when a start-up shuts down',
    'Satellite internet in the hills above {place}: a field test',
    'Smart meters: what they record and who can see it',
  ],
  education: [
    'Schools in {place} struggle to recruit maths teachers',
    'Reading scores recover after the pandemic, but unevenly',
    'What the new exam grading system means for students',
    'University fees: where the money goes',
    'Free school meals expanded in {place}: the first year',
    'Phones banned in classrooms in {place}: what teachers report',
    'Apprenticeships rise as university applications dip',
    'Class sizes in {place} are the largest in {n} years',
    'Adult education courses return to {place} libraries',
    'Special needs support: families in {place} wait months for assessments',
    'How tutoring programmes measured their impact',
    'School buildings in {place} need urgent repairs, survey finds',
  ],
  food: [
    'Why olive oil prices doubled, and when they may fall',
    'Farmers in {place} switch to drought-tolerant crops',
    'Food banks in {place} report record demand',
    'Is plant-based meat healthier? What studies show',
    'A poor harvest in {place} pushes up potato prices',
    'Ultra-processed food: what the label means',
    'Fishing quotas cut for the fleet based in {place}',
    'School lunches in {place} get more vegetables and less salt',
    'Bird flu and egg prices: the link explained',
    'Community gardens in {place} grow {n} tonnes of vegetables',
    'How sugar taxes changed what people buy',
    'Honey fraud: testing what is in the jar',
  ],
};
