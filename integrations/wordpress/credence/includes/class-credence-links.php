<?php
/**
 * Linking a WordPress user to a Credence account. A username typed into a profile is only a request: the plugin asks
 * Credence (POST /api/v1/publishers/{slug}/author-links) and Credence asks that person, who confirms in Credence
 * that this WordPress user is them. Posts name the person as their author only once the link is confirmed; until
 * then, and after a decline or an unlink, they name nobody. The answer is read when the profile is shown and by
 * WP-Cron.
 *
 * @package Credence
 */

defined( 'ABSPATH' ) || exit;

final class Credence_Links {
	/** User meta: the link as Credence last said it stands ({id, username, state}). */
	const META = 'credence_link';

	public static function init() {
		// Before the queue is drained (priority 10), so posts a new answer queued go in the same run.
		add_action( Credence_Registration::CRON, array( __CLASS__, 'refresh_all' ), 5 );
	}

	/** The publication the key acts for, as whoami said when the key was saved (asked again if unknown). */
	public static function publisher_slug() {
		$slug = (string) get_option( 'credence_publisher', '' );
		if ( '' !== $slug ) {
			return $slug;
		}
		$res = Credence_Client::from_options()->request( 'GET', '/whoami' );
		if ( is_wp_error( $res ) || empty( $res['data']['publisher']['slug'] ) ) {
			return '';
		}
		update_option( 'credence_publisher', (string) $res['data']['publisher']['slug'], false );
		return (string) $res['data']['publisher']['slug'];
	}

	/** This site as Credence knows it: its home page. */
	public static function site() {
		return home_url( '/' );
	}

	/** @return array|null The user's link ({id, username, state}), or null when none was asked for. */
	public static function link_of( $user_id ) {
		$link = get_user_meta( (int) $user_id, self::META, true );
		return is_array( $link ) && ! empty( $link['id'] ) ? $link : null;
	}

	/** The Credence username to name as this user's author: only a confirmed link gives one. */
	public static function confirmed_username( $user_id ) {
		$link = self::link_of( $user_id );
		return $link && 'confirmed' === $link['state'] ? (string) $link['username'] : '';
	}

	/**
	 * Ask Credence to link the user to a username; the person answers in Credence.
	 *
	 * @return array|WP_Error The link as Credence answered it.
	 */
	public static function ask( $user_id, $username ) {
		$slug = self::publisher_slug();
		if ( '' === $slug ) {
			return new WP_Error( 'credence_not_configured', __( 'Credence is not connected yet: enter a publisher key under Settings → Credence.', 'credence' ) );
		}
		$user = get_userdata( (int) $user_id );
		$res  = Credence_Client::from_options()->request(
			'POST',
			'/publishers/' . rawurlencode( $slug ) . '/author-links',
			array(
				'username'     => $username,
				'site'         => self::site(),
				'user_id'      => (string) (int) $user_id,
				// The name the site shows them by; never the login, which may be an email address.
				/* translators: %d: a WordPress user's ID */
				'display_name' => $user && '' !== trim( $user->display_name ) ? $user->display_name : sprintf( __( 'User %d', 'credence' ), (int) $user_id ),
			)
		);
		if ( is_wp_error( $res ) ) {
			return $res;
		}
		self::remember( $user_id, (array) $res['data'] );
		return (array) $res['data'];
	}

	/** Forget the user's link here (a username removed from the profile): posts name nobody. */
	public static function forget( $user_id ) {
		delete_user_meta( (int) $user_id, self::META );
	}

	/** Read one user's link again from Credence (the profile screen). */
	public static function refresh( $user_id ) {
		$link = self::link_of( $user_id );
		$slug = self::publisher_slug();
		if ( ! $link || '' === $slug ) {
			return;
		}
		$res = Credence_Client::from_options()->request( 'GET', '/publishers/' . rawurlencode( $slug ) . '/author-links/' . (int) $link['id'], null, array(), 5 );
		if ( ! is_wp_error( $res ) ) {
			self::remember( $user_id, (array) $res['data'] );
		}
	}

	/**
	 * WP-Cron: read every link of this site again, and ask for the users who gave a username but have no link yet
	 * (a site that had the plugin before links existed).
	 */
	public static function refresh_all() {
		$slug = self::publisher_slug();
		if ( '' === $slug ) {
			return;
		}
		$client = Credence_Client::from_options();
		for ( $page = 1; $page <= 50; $page++ ) {
			$res = $client->request( 'GET', '/publishers/' . rawurlencode( $slug ) . '/author-links', null, array( 'site' => self::site(), 'per_page' => 100, 'page' => $page ) );
			if ( is_wp_error( $res ) ) {
				return;
			}
			foreach ( (array) $res['data'] as $link ) {
				$mine = self::link_of( (int) $link['user_id'] );
				// Only the link the user's profile asked for now counts; an older ask (another username) is left.
				if ( $mine && (int) $mine['id'] === (int) $link['id'] ) {
					self::remember( (int) $link['user_id'], (array) $link );
				}
			}
			if ( $page * 100 >= (int) ( $res['meta']['total'] ?? 0 ) ) {
				break;
			}
		}
		foreach ( get_users( array( 'meta_key' => 'credence_username', 'fields' => 'ID' ) ) as $user_id ) { // phpcs:ignore WordPress.DB.SlowDBQuery.slow_db_query_meta_key
			$username = (string) get_user_meta( (int) $user_id, 'credence_username', true );
			if ( '' !== $username && ! self::link_of( $user_id ) && is_wp_error( self::ask( $user_id, $username ) ) ) {
				return;
			}
		}
	}

	/**
	 * Keep what Credence said; a link that has just been confirmed sends the user's published posts again, so the
	 * posts registered before the answer name their author too (each still a claim the person answers).
	 */
	private static function remember( $user_id, array $link ) {
		$before = self::link_of( $user_id );
		update_user_meta(
			(int) $user_id,
			self::META,
			array(
				'id'       => (int) $link['id'],
				'username' => (string) $link['username'],
				'state'    => (string) $link['state'],
			)
		);
		if ( 'confirmed' === $link['state'] && ( ! $before || 'confirmed' !== $before['state'] || (int) $before['id'] !== (int) $link['id'] ) ) {
			$posts = get_posts(
				array(
					'author'         => (int) $user_id,
					'post_type'      => Credence_Registration::post_types(),
					'post_status'    => 'publish',
					'fields'         => 'ids',
					'posts_per_page' => 500,
				)
			);
			if ( $posts ) {
				Credence_Registration::enqueue( $posts );
			}
		}
	}
}
